package dev.ballast.operator.desired;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import org.junit.jupiter.api.Test;

class BalancerResourcesTest {
  final Deployment deployment = BalancerResources.deployment(TestJobs.job("olmoe", 2, 4, 8), OperatorSettings.defaults(),
      "1f");
  final PodSpec pod = deployment.getSpec().getTemplate().getSpec();

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
