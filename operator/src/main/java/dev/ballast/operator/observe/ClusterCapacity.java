package dev.ballast.operator.observe;

import dev.ballast.operator.api.TopologySpec;
import dev.ballast.operator.desired.Labels;
import dev.ballast.operator.placement.GpuNode;
import dev.ballast.operator.placement.Resources;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Turns Nodes and Pods into the placement function's view: GPU nodes with everything they can
 * allocate, their labels and topology, and the resources already requested per node — by pods bound
 * there, and by Ballast workers promised there but not yet bound (only those an existing TrainingJob
 * controls: a forged promise holds nothing) — each pod also taking one of the node's pod slots.
 */
public record ClusterCapacity(List<GpuNode> nodes, Map<String, Resources> used) {
  // of() builds this from scratch; admission reads it from a CapacitySnapshot, kept by events, which must equal it
  private static final Resources ONE_POD = Resources.of(Resources.PODS, 1);

  public static ClusterCapacity of(List<Node> nodes, List<Pod> pods, TopologySpec topology, ExistingJobs jobs) {
    List<GpuNode> gpuNodes = nodes.stream()
        .map(n -> toGpuNode(n, topology))
        .filter(n -> n.allocatableGpus() > 0)
        .toList();
    Map<String, Resources> used = new TreeMap<>();
    for (Pod pod : pods) {
      if (PodHold.finished(pod)) continue; // finished pods hold nothing, as for the scheduler
      String node = heldNode(pod, jobs);
      if (node != null && pod.getSpec() != null) {
        used.merge(node, PodRequests.of(pod.getSpec()).plus(ONE_POD), Resources::plus);
      }
    }
    return new ClusterCapacity(gpuNodes, used);
  }

  /** The same cluster without the named nodes. */
  public ClusterCapacity without(Set<String> names) {
    return new ClusterCapacity(nodes.stream().filter(n -> !names.contains(n.name())).toList(), used);
  }

  /** What one pod built from {@code spec} takes on its node: its effective request and a pod slot. */
  public static Resources perPod(io.fabric8.kubernetes.api.model.PodSpec spec) {
    return PodRequests.of(spec).plus(ONE_POD);
  }

  static GpuNode toGpuNode(Node node, TopologySpec topology) {
    return NodeRecord.of(node).on(topology);
  }

  /** The node whose resources the pod holds: where it is bound, or where an existing TrainingJob's admission promised it. Pure. */
  public static String heldNode(Pod pod, ExistingJobs jobs) {
    String bound = boundNode(pod);
    if (bound != null) return bound;
    String promised = promisedNode(pod);
    return promised != null && jobs.control(pod) ? promised : null;
  }

  /**
   * Bound node, or else the node the pod's annotation claims: what the cache indexes pods by (a claim's owner is
   * checked when capacity is read, because the owner may be created or deleted after the pod).
   */
  static String claimedNode(Pod pod) {
    String bound = boundNode(pod);
    return bound != null ? bound : promisedNode(pod);
  }

  private static String boundNode(Pod pod) {
    return pod.getSpec() == null ? null : pod.getSpec().getNodeName();
  }

  private static String promisedNode(Pod pod) {
    var annotations = pod.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(Labels.ASSIGNED_NODE);
  }
}
