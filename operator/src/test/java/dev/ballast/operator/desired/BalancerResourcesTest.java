package dev.ballast.operator.desired;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import dev.ballast.operator.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import org.junit.jupiter.api.Test;

class BalancerResourcesTest {
  final TrainingJob job = TestJobs.job("olmoe", 2, 4, 8);

  static Deployment deployment(TrainingJob job, Phase phase) {
    return BalancerResources.build(job, OperatorSettings.defaults(), phase).stream()
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
}
