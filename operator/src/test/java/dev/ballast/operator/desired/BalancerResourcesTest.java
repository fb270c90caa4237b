package dev.ballast.operator.desired;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import dev.ballast.operator.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import org.junit.jupiter.api.Test;

class BalancerResourcesTest {
  final TrainingJob job = TestJobs.job("olmoe", 2, 4, 8);
  final PodSpec pod = deployment(job, Phase.Running).getSpec().getTemplate().getSpec();

  static Deployment deployment(TrainingJob job, Phase phase) {
    return BalancerResources.build(job, OperatorSettings.defaults(), phase, "1f").stream()
        .filter(Deployment.class::isInstance).map(Deployment.class::cast).findFirst().orElseThrow();
  }

  @Test
  void theBalancerRunsOnlyWhileTheJobHasAWorldToPlanFor() {
    assertThat(deployment(job, Phase.Pending).getSpec().getReplicas()).isZero();
    assertThat(deployment(job, Phase.Suspended).getSpec().getReplicas()).isZero();
    for (Phase phase : new Phase[] {Phase.Admitted, Phase.Running, Phase.Restarting, Phase.Resizing}) {
      assertThat(deployment(job, phase).getSpec().getReplicas()).as(phase.name()).isEqualTo(1);
    }
    assertThat(TemplateHash.read(deployment(job, Phase.Pending)))
        .as("scaling is a change the operator applies").isNotEqualTo(TemplateHash.read(deployment(job, Phase.Running)));
  }

  @Test
  void theBalancerLeavesANotReadyNodeWhenTheJobCountsItLost() {
    job.getSpec().recovery.nodeLostAfterSeconds = 17;
    assertThat(deployment(job, Phase.Running).getSpec().getTemplate().getSpec().getTolerations())
        .extracting(t -> t.getKey() + ":" + t.getOperator() + ":" + t.getEffect() + ":" + t.getTolerationSeconds())
        .containsExactly("node.kubernetes.io/not-ready:Exists:NoExecute:17",
            "node.kubernetes.io/unreachable:Exists:NoExecute:17");
  }

  @Test
  void theBalancerPodPassesTheRestrictedPodSecurityStandard() {
    assertThat(pod.getContainers()).isNotEmpty().allSatisfy(c ->
        assertThat(RestrictedPolicy.violations(pod, c)).as(c.getName()).isEmpty());
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
  }

  @Test
  void theCheckSeesWhatTheStandardRefuses() {
    var c = pod.getContainers().get(0);
    c.getSecurityContext().setAllowPrivilegeEscalation(null);
    c.getSecurityContext().getCapabilities().setDrop(java.util.List.of());
    c.setVolumeMounts(java.util.List.of());
    pod.setSecurityContext(null);
    c.getSecurityContext().setSeccompProfile(null);
    assertThat(RestrictedPolicy.violations(pod, c)).containsExactlyInAnyOrder("allowPrivilegeEscalation is not false",
        "capabilities do not drop ALL", "no emptyDir at /tmp", "seccompProfile is not RuntimeDefault or Localhost");
  }
}
