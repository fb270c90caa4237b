package dev.ballast.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.observe.NodeStatesTest;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

class NodeChangeTest {
  @Test
  void heartbeatsDoNotReconcileButReadinessCordonTaintsAndCapacityDo() {
    Node before = NodeStatesTest.node("n", "True", "2026-12-01T00:00:00Z", null);
    Node heartbeat = Serialization.clone(before);
    heartbeat.getStatus().getConditions().get(0).setLastHeartbeatTime("2026-12-03T00:00:00Z");
    heartbeat.getMetadata().setResourceVersion("2");
    assertThat(NodeChange.matters(before, heartbeat)).isFalse();

    Node notReady = Serialization.clone(before);
    notReady.getStatus().getConditions().get(0).setStatus("Unknown");
    assertThat(NodeChange.matters(before, notReady)).isTrue();
    Node cordoned = Serialization.clone(before);
    cordoned.getSpec().setUnschedulable(true);
    assertThat(NodeChange.matters(before, cordoned)).isTrue();
    Node fewerGpus = Serialization.clone(before);
    fewerGpus.getStatus().getAllocatable().put("nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity("4"));
    assertThat(NodeChange.matters(before, fewerGpus)).isTrue();
  }
}
