package dev.ballast.operator.observe;

import dev.ballast.operator.placement.Resources;
import java.util.HashMap;
import java.util.Map;

/**
 * The pods holding part of one node, by uid, with the sum of the bound ones kept ready: bound pods count whoever
 * owns them, so their sum is reused by every admission until a pod of this node changes. Immutable; a change
 * re-sums this node's pods only.
 *
 * @param promised whether any pod here is only promised the node (its hold depends on its job existing)
 */
public record NodeUsage(Map<String, PodHold> pods, Resources bound, boolean promised) {
  public static final NodeUsage EMPTY = new NodeUsage(Map.of(), Resources.NONE, false);

  public NodeUsage {
    pods = Map.copyOf(pods);
  }

  NodeUsage with(PodHold hold) {
    Map<String, PodHold> next = new HashMap<>(pods);
    next.put(hold.uid(), hold);
    return of(next);
  }

  NodeUsage without(String uid) {
    Map<String, PodHold> next = new HashMap<>(pods);
    next.remove(uid);
    return of(next);
  }

  private static NodeUsage of(Map<String, PodHold> pods) {
    Resources bound = Resources.NONE;
    boolean promised = false;
    for (PodHold h : pods.values()) {
      if (h.bound()) {
        bound = bound.plus(h.held());
      } else {
        promised = true;
      }
    }
    return new NodeUsage(pods, bound, promised);
  }
}
