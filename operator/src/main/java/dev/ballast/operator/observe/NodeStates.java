package dev.ballast.operator.observe;

import dev.ballast.operator.api.TopologySpec;
import dev.ballast.operator.world.NodeState;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Turns Nodes into the world's view of them: placement view, since when NotReady, out of service. */
public final class NodeStates {
  private NodeStates() {}

  public static Map<String, NodeState> of(List<Node> nodes, TopologySpec topology) {
    Map<String, NodeState> states = new LinkedHashMap<>();
    for (Node node : nodes) {
      var gpuNode = ClusterCapacity.toGpuNode(node, topology);
      Instant notReadySince = gpuNode.ready() ? null : notReadySince(node);
      boolean outOfService = node.getSpec() != null && node.getSpec().getTaints().stream()
          .anyMatch(t -> NodeState.OUT_OF_SERVICE_TAINT.equals(t.getKey()));
      states.put(gpuNode.name(), new NodeState(gpuNode, notReadySince, outOfService));
    }
    return states;
  }

  /** When the Ready condition last left True; a node that never reported one counts from its creation. */
  private static Instant notReadySince(Node node) {
    var ready = node.getStatus() == null ? null : node.getStatus().getConditions().stream()
        .filter(c -> "Ready".equals(c.getType())).findFirst().orElse(null);
    String at = ready != null && ready.getLastTransitionTime() != null ? ready.getLastTransitionTime()
        : node.getMetadata().getCreationTimestamp();
    return at == null ? Instant.EPOCH : Instant.parse(at);
  }
}
