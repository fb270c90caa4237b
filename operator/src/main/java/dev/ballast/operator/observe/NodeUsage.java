package dev.ballast.operator.observe;

import dev.ballast.operator.placement.Resources;
import java.util.HashMap;
import java.util.Map;

/**
 * The pods holding part of one node, by uid, with their sums kept ready: the bound ones (which count whoever owns
 * them) in one sum, the ones only promised the node in one sum per controlling TrainingJob (which count while that
 * job exists). Every admission reuses the sums until a pod of this node changes. Immutable; a change re-sums this
 * node's pods only.
 *
 * @param promised per TrainingJob, what its pods promised this node (and not bound) request; pods promised without
 *     a TrainingJob controller are left out, as they hold nothing
 */
public record NodeUsage(Map<String, PodHold> pods, Resources bound, Map<ExistingJobs.JobRef, Resources> promised) {
  public static final NodeUsage EMPTY = new NodeUsage(Map.of(), Resources.NONE, Map.of());

  public NodeUsage {
    pods = Map.copyOf(pods);
    promised = Map.copyOf(promised);
  }

  /** What the pods here hold given which TrainingJobs exist; null when none holds anything. */
  Resources held(ExistingJobs jobs) {
    Resources sum = bound.amounts().isEmpty() ? null : bound; // every pod takes a pod slot: empty means none bound
    for (Map.Entry<ExistingJobs.JobRef, Resources> e : promised.entrySet()) {
      if (jobs.exists(e.getKey())) sum = sum == null ? e.getValue() : sum.plus(e.getValue());
    }
    return sum;
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
    Map<ExistingJobs.JobRef, Resources> promised = new HashMap<>();
    for (PodHold h : pods.values()) {
      if (h.bound()) {
        bound = bound.plus(h.held());
      } else if (h.controller() != null) {
        promised.merge(h.controller(), h.held(), Resources::plus);
      }
    }
    return new NodeUsage(pods, bound, promised);
  }
}
