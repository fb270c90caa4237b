package dev.ballast.operator.observe;

import dev.ballast.operator.api.TopologySpec;
import dev.ballast.operator.desired.Labels;
import dev.ballast.operator.desired.WorkerPods;
import dev.ballast.operator.placement.GpuNode;
import dev.ballast.operator.placement.Taint;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Turns Nodes and Pods into the placement function's view: GPU nodes with their topology, and GPUs
 * already taken per node — by pods bound there, and by Ballast workers promised there but not yet bound.
 */
public record ClusterCapacity(List<GpuNode> nodes, Map<String, Integer> usedGpus) {

  /** @param nodeSelector the pod template's nodeSelector: nodes without all these labels are not offered */
  public static ClusterCapacity of(List<Node> nodes, List<Pod> pods, TopologySpec topology,
      Map<String, String> nodeSelector) {
    List<GpuNode> gpuNodes = nodes.stream()
        .filter(n -> matches(n, nodeSelector))
        .map(n -> toGpuNode(n, topology))
        .filter(n -> n.allocatableGpus() > 0)
        .toList();
    Map<String, Integer> used = new TreeMap<>();
    for (Pod pod : pods) {
      if (pod.getStatus() != null
          && ("Succeeded".equals(pod.getStatus().getPhase()) || "Failed".equals(pod.getStatus().getPhase()))) {
        continue; // finished pods hold no GPUs
      }
      String node = nodeOf(pod);
      int gpus = gpuRequest(pod);
      if (node != null && gpus > 0) used.merge(node, gpus, Integer::sum);
    }
    return new ClusterCapacity(gpuNodes, used);
  }

  private static boolean matches(Node node, Map<String, String> selector) {
    var labels = node.getMetadata().getLabels() == null ? Map.<String, String>of() : node.getMetadata().getLabels();
    return selector.entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
  }

  static GpuNode toGpuNode(Node node, TopologySpec topology) {
    var labels = node.getMetadata().getLabels() == null ? Map.<String, String>of() : node.getMetadata().getLabels();
    Quantity allocatable = node.getStatus() == null || node.getStatus().getAllocatable() == null
        ? null : node.getStatus().getAllocatable().get(WorkerPods.GPU_RESOURCE);
    boolean ready = node.getStatus() != null && node.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    boolean unschedulable = node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
    List<Taint> taints = node.getSpec() == null ? List.of() : node.getSpec().getTaints().stream()
        .map(t -> new Taint(t.getKey(), t.getValue(), t.getEffect())).toList();
    return new GpuNode(node.getMetadata().getName(), allocatable == null ? 0 : wholeGpus(allocatable), ready,
        unschedulable, taints, labels.get(topology.domainLabel), labels.get(topology.rackLabel));
  }

  /** Bound node, or for a gated Ballast worker the node admission promised it. */
  static String nodeOf(Pod pod) {
    if (pod.getSpec() != null && pod.getSpec().getNodeName() != null) return pod.getSpec().getNodeName();
    var annotations = pod.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(Labels.ASSIGNED_NODE);
  }

  /** Effective GPU request as the scheduler computes it: containers plus native sidecars, or the largest init container. */
  static int gpuRequest(Pod pod) {
    if (pod.getSpec() == null) return 0;
    int main = 0;
    int sidecars = 0;
    int initPeak = 0;
    for (Container c : pod.getSpec().getContainers()) main += gpus(c);
    for (Container c : pod.getSpec().getInitContainers()) {
      if ("Always".equals(c.getRestartPolicy())) {
        sidecars += gpus(c);
      } else {
        initPeak = Math.max(initPeak, sidecars + gpus(c));
      }
    }
    return Math.max(main + sidecars, initPeak);
  }

  private static int gpus(Container c) {
    if (c.getResources() == null) return 0;
    Quantity q = c.getResources().getRequests() == null ? null : c.getResources().getRequests().get(WorkerPods.GPU_RESOURCE);
    if (q == null && c.getResources().getLimits() != null) q = c.getResources().getLimits().get(WorkerPods.GPU_RESOURCE);
    return q == null ? 0 : wholeGpus(q);
  }

  private static int wholeGpus(Quantity q) {
    return Quantity.getAmountInBytes(q).intValue();
  }
}
