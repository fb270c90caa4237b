package dev.ballast.operator.observe;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Admission's view of the cluster kept incrementally from informer events, so that an admission attempt does not
 * re-parse every node and re-sum every pod: each event re-parses one node or re-sums the pods of one node, and
 * {@link #snapshot()} hands out an immutable {@link CapacitySnapshot}, copied (references only) at most once per
 * change. Events may arrive in any order and repeat (a relist replays them): a pod is keyed by uid, an update is an
 * upsert, a delete of an unknown pod or node does nothing. Thread-safe.
 */
public final class CapacityView {
  private final Map<String, NodeRecord> nodes = new HashMap<>();
  private final Map<String, NodeUsage> usage = new HashMap<>();
  private final Map<String, PodHold> holds = new HashMap<>();
  private final Map<String, Set<String>> byOwner = new HashMap<>();
  private CapacitySnapshot snapshot = CapacitySnapshot.EMPTY;
  private boolean changed;

  /** A node was added or changed (allocatable, labels, taints, readiness, cordon). */
  public synchronized void nodeChanged(Node node) {
    nodes.put(node.getMetadata().getName(), NodeRecord.of(node));
    changed = true;
  }

  public synchronized void nodeDeleted(Node node) {
    changed |= nodes.remove(node.getMetadata().getName()) != null;
  }

  /** A pod was added or changed: bound, promised, finished, its requests resized. */
  public synchronized void podChanged(Pod pod) {
    remove(pod.getMetadata().getUid());
    PodHold hold = PodHold.of(pod);
    if (hold != null) add(hold);
  }

  /**
   * The informer stored {@code pod} where it held {@code old} (null when new): if the uid differs (a relist found
   * the name reused), the old pod is gone.
   */
  public synchronized void podReplaced(Pod old, Pod pod) {
    if (old != null && !Objects.equals(old.getMetadata().getUid(), pod.getMetadata().getUid())) {
      remove(old.getMetadata().getUid());
    }
    podChanged(pod);
  }

  public synchronized void podDeleted(Pod pod) {
    remove(pod.getMetadata().getUid());
  }

  /** The view as of now; the same object until the next change. */
  public synchronized CapacitySnapshot snapshot() {
    if (changed) {
      snapshot = new CapacitySnapshot(Map.copyOf(nodes), Map.copyOf(usage), Map.copyOf(holds), Map.copyOf(byOwner));
      changed = false;
    }
    return snapshot;
  }

  private void add(PodHold hold) {
    holds.put(hold.uid(), hold);
    usage.put(hold.node(), usage.getOrDefault(hold.node(), NodeUsage.EMPTY).with(hold));
    for (OwnerReference o : hold.pod().getMetadata().getOwnerReferences()) {
      if (!ownedByJob(o)) continue;
      Set<String> owned = new HashSet<>(byOwner.getOrDefault(o.getUid(), Set.of()));
      owned.add(hold.uid());
      byOwner.put(o.getUid(), Set.copyOf(owned));
    }
    changed = true;
  }

  /** Only TrainingJobs' pods are looked up by owner (a DaemonSet's thousand pods are not indexed). */
  private static boolean ownedByJob(OwnerReference o) {
    return o.getUid() != null && ExistingJobs.KIND.equals(o.getKind()) && o.getApiVersion() != null
        && o.getApiVersion().startsWith(ExistingJobs.GROUP + "/");
  }

  private void remove(String uid) {
    PodHold old = holds.remove(uid);
    if (old == null) return;
    NodeUsage left = usage.get(old.node()).without(uid);
    if (left.pods().isEmpty()) {
      usage.remove(old.node());
    } else {
      usage.put(old.node(), left);
    }
    for (OwnerReference o : old.pod().getMetadata().getOwnerReferences()) {
      Set<String> owned = byOwner.get(o.getUid());
      if (owned == null) continue;
      Set<String> rest = new HashSet<>(owned);
      rest.remove(uid);
      if (rest.isEmpty()) {
        byOwner.remove(o.getUid());
      } else {
        byOwner.put(o.getUid(), Set.copyOf(rest));
      }
    }
    changed = true;
  }
}
