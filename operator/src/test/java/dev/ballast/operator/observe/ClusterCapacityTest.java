package dev.ballast.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.api.TopologySpec;
import dev.ballast.operator.desired.Labels;
import dev.ballast.operator.placement.Resources;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterCapacityTest {
  static final ExistingJobs NO_JOBS = new ExistingJobs(Map.of());
  static final ExistingJobs JOB_IN_TEAM_A = new ExistingJobs(Map.of("uid-job", "team-a"));

  static Node node(String name, int gpus, boolean ready, boolean cordoned) {
    return new NodeBuilder().withNewMetadata().withName(name)
        .addToLabels("nvidia.com/gpu.clique", "nvl-" + name).addToLabels("topology.kubernetes.io/rack", "rack-1")
        .endMetadata()
        .withNewSpec().withUnschedulable(cordoned)
        .addNewTaint().withKey("dedicated").withValue("ml").withEffect("NoSchedule").endTaint().endSpec()
        .withNewStatus().addToAllocatable("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
        .addNewCondition().withType("Ready").withStatus(ready ? "True" : "False").endCondition().endStatus()
        .build();
  }

  static Pod pod(String node, String assigned, String phase, int gpus, int sidecarGpus) {
    var b = new PodBuilder().withNewMetadata().withName("p").withNamespace("team-a").addToAnnotations(Map.of())
        .addNewOwnerReference().withApiVersion("ballast.dev/v1alpha1").withKind("TrainingJob").withName("job")
        .withUid("uid-job").withController(true).endOwnerReference().endMetadata()
        .withNewSpec().withNodeName(node)
        .addNewContainer().withName("c").withNewResources()
        .addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus))).endResources().endContainer()
        .addNewInitContainer().withName("s").withRestartPolicy("Always").withNewResources()
        .addToRequests("nvidia.com/gpu", new Quantity(Integer.toString(sidecarGpus))).endResources().endInitContainer()
        .endSpec()
        .withNewStatus().withPhase(phase).endStatus();
    Pod p = b.build();
    if (assigned != null) p.getMetadata().getAnnotations().put(Labels.ASSIGNED_NODE, assigned);
    return p;
  }

  @Test
  void nodesCarryTheirTopologyReadinessAndTaints() {
    var cap = ClusterCapacity.of(List.of(node("a", 8, true, false), node("b", 8, false, true), node("cpu", 0, true, false)),
        List.of(), new TopologySpec(), NO_JOBS);
    assertThat(cap.nodes()).extracting("name").containsExactly("a", "b"); // the CPU-only node is not a GPU node
    var a = cap.nodes().get(0);
    assertThat(a.allocatableGpus()).isEqualTo(8);
    assertThat(a.domain()).isEqualTo("nvl-a");
    assertThat(a.rack()).isEqualTo("rack-1");
    assertThat(a.taints()).singleElement().satisfies(t -> assertThat(t.key()).isEqualTo("dedicated"));
    var b = cap.nodes().get(1);
    assertThat(b.ready()).isFalse();
    assertThat(b.unschedulable()).isTrue();
  }

  @Test
  void boundAndPromisedPodsUseGpusFinishedOnesDoNot() {
    var cap = ClusterCapacity.of(List.of(), List.of(
        pod("a", null, "Running", 4, 0),
        pod(null, "a", "Pending", 2, 0),    // gated Ballast worker promised to node a
        pod("b", null, "Succeeded", 8, 0),  // finished: its GPUs are free again
        pod(null, null, "Pending", 8, 0),   // an unscheduled non-Ballast pod holds nothing yet
        pod("c", null, "Running", 1, 1)),   // native sidecars add to the containers
        new TopologySpec(), JOB_IN_TEAM_A);
    assertThat(cap.used()).isEqualTo(Map.of(
        "a", new Resources(Map.of(Resources.GPU, 6L, Resources.PODS, 2L)),
        "c", new Resources(Map.of(Resources.GPU, 2L, Resources.PODS, 1L))));
  }

  @Test
  void aPromiseCountsOnlyFromAPodThatAnExistingTrainingJobControlsInItsNamespace() {
    Pod promised = pod(null, "a", "Pending", 8, 0);
    assertThat(ClusterCapacity.heldNode(promised, JOB_IN_TEAM_A)).isEqualTo("a");
    assertThat(ClusterCapacity.heldNode(promised, NO_JOBS)).as("its job is gone").isNull();
    assertThat(ClusterCapacity.heldNode(promised, new ExistingJobs(Map.of("uid-job", "team-b"))))
        .as("a job of that uid in another namespace").isNull();

    Pod noOwner = pod(null, "a", "Pending", 8, 0);
    noOwner.getMetadata().setOwnerReferences(List.of());
    assertThat(ClusterCapacity.heldNode(noOwner, JOB_IN_TEAM_A)).as("a forged annotation").isNull();

    Pod notController = pod(null, "a", "Pending", 8, 0);
    notController.getMetadata().getOwnerReferences().get(0).setController(false);
    assertThat(ClusterCapacity.heldNode(notController, JOB_IN_TEAM_A)).isNull();

    Pod otherKind = pod(null, "a", "Pending", 8, 0);
    otherKind.getMetadata().getOwnerReferences().get(0).setKind("Job");
    otherKind.getMetadata().getOwnerReferences().get(0).setApiVersion("batch/v1");
    assertThat(ClusterCapacity.heldNode(otherKind, JOB_IN_TEAM_A)).as("a uid of another kind").isNull();

    Pod bound = pod("b", "a", "Running", 8, 0);
    bound.getMetadata().setOwnerReferences(List.of());
    assertThat(ClusterCapacity.heldNode(bound, NO_JOBS)).as("a bound pod holds its node, whoever owns it")
        .isEqualTo("b");
  }

  @Test
  void forgedPromisesLeaveTheirNodesFree() {
    Pod forged = pod(null, "a", "Pending", 8, 0);
    forged.getMetadata().setOwnerReferences(List.of());
    var cap = ClusterCapacity.of(List.of(node("a", 8, true, false)), List.of(forged), new TopologySpec(), JOB_IN_TEAM_A);
    assertThat(cap.used()).isEmpty();
  }
}
