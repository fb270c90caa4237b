package dev.ballast.operator.world;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterViewTest {
  static Pod pod(String name, String node) {
    return new PodBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withNodeName(node).endSpec().build();
  }

  @Test
  void podsAreStrandedOnlyOnNodesThatAreDeletedOrOutOfService() {
    var sim = new WorldSim().nodes("ready", "notready", "outofservice", "deleted");
    sim.notReady("notready");
    sim.outOfService("outofservice");
    sim.deleteNode("deleted");
    var cluster = new ClusterView(sim.nodes, null, List.of());

    List<Pod> pods = List.of(pod("on-ready", "ready"), pod("on-notready", "notready"),
        pod("on-outofservice", "outofservice"), pod("on-deleted", "deleted"), pod("unbound", null));

    assertThat(cluster.stranded(pods)).extracting(p -> p.getMetadata().getName())
        .as("a NotReady node may still run its pods: never force-deleted there")
        .containsExactly("on-outofservice", "on-deleted");
  }
}
