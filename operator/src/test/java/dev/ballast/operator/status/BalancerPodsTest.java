package dev.ballast.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Why a balancer does not run, read from its Deployment and pods as the controllers and the kubelet write them. */
class BalancerPodsTest {
  static Pod pod(String name, String node) {
    return new PodBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec().withNodeName(node).endSpec()
        .withNewStatus().withPhase("Pending").endStatus().build();
  }

  @Test
  void aDeploymentWhoseReplicaSetCannotCreateThePodSaysWhy() {
    Deployment refused = new DeploymentBuilder().withNewStatus().addNewCondition().withType("ReplicaFailure")
        .withStatus("True").withReason("FailedCreate").withMessage("pods \"t-balancer-5c\" is forbidden: exceeded quota:"
            + " no-class, requested: pods=1, used: pods=0, limited: pods=0").endCondition().endStatus().build();
    assertThat(BalancerPods.problem(refused, List.of())).hasValue("its pod cannot be created (FailedCreate): pods"
        + " \"t-balancer-5c\" is forbidden: exceeded quota: no-class, requested: pods=1, used: pods=0, limited: pods=0");
    refused.getStatus().getConditions().get(0).setStatus("False");
    assertThat(BalancerPods.problem(refused, List.of())).as("a failure the controller has cleared").isEmpty();
  }

  @Test
  void aPodThatCannotStartOrBeScheduledIsNamedAndARunningOneIsFine() {
    Pod pulling = pod("t-balancer-a", "n0");
    pulling.getStatus().setContainerStatuses(List.of(new io.fabric8.kubernetes.api.model.ContainerStatusBuilder()
        .withName("balancer").withNewState().withNewWaiting().withReason("ImagePullBackOff")
        .withMessage("Back-off pulling image \"registry.example/ballast-balancer:9\"").endWaiting().endState().build()));
    assertThat(BalancerPods.problem(null, List.of(pulling))).hasValue("pod t-balancer-a, container balancer:"
        + " ImagePullBackOff (Back-off pulling image \"registry.example/ballast-balancer:9\")");

    Pod unplaced = pod("t-balancer-b", null);
    unplaced.getStatus().setConditions(List.of(new io.fabric8.kubernetes.api.model.PodConditionBuilder()
        .withType("PodScheduled").withStatus("False").withReason("Unschedulable")
        .withMessage("0/3 nodes are available: 3 Insufficient cpu.").build()));
    assertThat(BalancerPods.problem(null, List.of(unplaced)))
        .hasValue("pod t-balancer-b cannot be scheduled: 0/3 nodes are available: 3 Insufficient cpu.");

    Pod creating = pod("t-balancer-c", "n0");
    creating.getStatus().setContainerStatuses(List.of(new io.fabric8.kubernetes.api.model.ContainerStatusBuilder()
        .withName("balancer").withNewState().withNewWaiting().withReason("ContainerCreating").endWaiting().endState()
        .build()));
    assertThat(BalancerPods.problem(null, List.of(creating))).as("starting is no problem").isEmpty();
    pulling.getMetadata().setDeletionTimestamp("2026-12-07T12:00:00Z");
    assertThat(BalancerPods.problem(new Deployment(), List.of(pulling))).as("a pod on its way out").isEmpty();
  }
}
