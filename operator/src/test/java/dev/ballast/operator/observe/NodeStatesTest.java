package dev.ballast.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.api.TopologySpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

public class NodeStatesTest {
  public static Node node(String name, String ready, String since, String taint) {
    var b = new NodeBuilder().withNewMetadata().withName(name).withCreationTimestamp("2026-01-01T00:00:00Z")
        .endMetadata().withNewSpec().endSpec()
        .withNewStatus().addToAllocatable("nvidia.com/gpu", new Quantity("8"))
        .addNewCondition().withType("Ready").withStatus(ready).withLastTransitionTime(since).endCondition()
        .endStatus();
    if (taint != null) b.editSpec().addNewTaint().withKey(taint).withEffect("NoExecute").endTaint().endSpec();
    return b.build();
  }

  @Test
  void notReadySinceComesFromTheReadyConditionAndOutOfServiceFromTheTaint() {
    var states = NodeStates.of(List.of(
        node("ok", "True", "2026-12-01T00:00:00Z", null),
        node("down", "Unknown", "2026-12-02T10:00:00Z", null),
        node("fenced", "False", "2026-12-02T11:00:00Z", "node.kubernetes.io/out-of-service")), new TopologySpec());
    assertThat(states.get("ok").notReadySince()).isNull();
    assertThat(states.get("ok").outOfService()).isFalse();
    assertThat(states.get("down").notReadySince()).isEqualTo(Instant.parse("2026-12-02T10:00:00Z"));
    assertThat(states.get("down").node().ready()).isFalse();
    assertThat(states.get("fenced").outOfService()).isTrue();
  }
}
