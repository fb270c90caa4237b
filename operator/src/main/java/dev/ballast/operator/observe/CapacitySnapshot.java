package dev.ballast.operator.observe;

import dev.ballast.operator.api.TopologySpec;
import dev.ballast.operator.placement.GpuNode;
import dev.ballast.operator.placement.Resources;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One consistent, immutable moment of the cluster as admission counts it, handed out by {@link CapacityView}: the
 * nodes (parsed), the pods holding part of each (summed per node), and the same pods by uid and by owner. Turning it
 * into placement's input ({@link #capacity}) adds each node's kept sums (bound pods; promised pods per TrainingJob, if
 * it exists) and re-sums pod by pod only the nodes holding pods left out (the admitted job's own).
 *
 * @param nodes every Node by name
 * @param usage the pods holding part of each node, by node name (a node may be missing from {@code nodes})
 * @param holds every pod here, by uid
 * @param byOwner the uids of the pods here by the uid of each TrainingJob owning them
 */
public record CapacitySnapshot(Map<String, NodeRecord> nodes, Map<String, NodeUsage> usage, Map<String, PodHold> holds,
                               Map<String, Set<String>> byOwner) {
  public static final CapacitySnapshot EMPTY = new CapacitySnapshot(Map.of(), Map.of(), Map.of(), Map.of());

  /** Whether the cache has delivered the pod with this uid (and it holds part of a node). */
  public boolean shows(String uid) {
    return holds.containsKey(uid);
  }

  /** The pods here that the TrainingJob with uid {@code jobUid} owns (any owner reference). */
  public List<Pod> podsOwnedBy(String jobUid) {
    return byOwner.getOrDefault(jobUid, Set.of()).stream().map(uid -> holds.get(uid).pod()).toList();
  }

  /**
   * Placement's input: the GPU nodes, and per node what the pods here hold, counting a promise only from a pod an
   * existing job controls, leaving out the pods {@code leftOut} (uids), and adding {@code extra} pods the cache does
   * not show yet. Equals {@link ClusterCapacity#of} over the same nodes and pods.
   */
  public ClusterCapacity capacity(TopologySpec topology, ExistingJobs jobs, Set<String> leftOut, Collection<Pod> extra) {
    List<GpuNode> gpuNodes = new ArrayList<>();
    for (NodeRecord n : nodes.values()) {
      if (n.hasGpus()) gpuNodes.add(n.on(topology));
    }
    Set<String> touched = nodesOf(leftOut);
    Map<String, Resources> used = new HashMap<>();
    usage.forEach((node, u) -> {
      Resources sum = null;
      if (touched.contains(node)) {
        for (PodHold h : u.pods().values()) {
          if (leftOut.contains(h.uid()) || !h.counts(jobs)) continue;
          sum = sum == null ? h.held() : sum.plus(h.held());
        }
      } else {
        sum = u.held(jobs);
      }
      if (sum != null) used.put(node, sum);
    });
    for (Pod p : extra) {
      PodHold h = PodHold.of(p);
      if (h != null && !leftOut.contains(h.uid()) && h.counts(jobs)) used.merge(h.node(), h.held(), Resources::plus);
    }
    return new ClusterCapacity(gpuNodes, used);
  }

  /** How many pods {@link #capacity} sums one by one with these arguments (the rest count by their node's sums). */
  public int podsSummed(Set<String> leftOut, Collection<Pod> extra) {
    int n = extra.size();
    for (String node : nodesOf(leftOut)) n += usage.get(node).pods().size();
    return n;
  }

  private Set<String> nodesOf(Set<String> uids) {
    Set<String> out = new HashSet<>();
    for (String uid : uids) {
      PodHold h = holds.get(uid);
      if (h != null) out.add(h.node());
    }
    return out;
  }
}
