package dev.ballast.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.config.OperatorSettings;
import dev.ballast.operator.metrics.ReconcileStep;
import dev.ballast.operator.metrics.ReconcileStepFailed;
import dev.ballast.operator.status.Conditions;
import dev.ballast.operator.status.StatusAggregator;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A reconcile that throws reaches the job's status (Reconciled False, ReconcileError) and its events. */
@EnableKubernetesMockClient(crud = true)
class ReconcileErrorTest {
  KubernetesClient client;

  @Test
  void aFailedStepSetsReconciledFalseAndRecordsOneEventPerMessage() {
    var reconciler = new TrainingJobReconciler(client, OperatorSettings.defaults(), 1);
    TrainingJob job = TestJobs.job("j", 1, 2, 8);
    var failure = new ReconcileStepFailed(ReconcileStep.DESIRED, new IllegalStateException("quota exceeded"));

    var control = reconciler.updateErrorStatus(job, null, failure);
    TrainingJobStatus status = control.getResource().orElseThrow().getStatus();
    Condition reconciled = status.conditions.stream()
        .filter(c -> Conditions.RECONCILED.equals(c.getType())).findFirst().orElseThrow();
    assertThat(reconciled.getStatus()).isEqualTo("False");
    assertThat(reconciled.getReason()).isEqualTo(StatusAggregator.RECONCILE_ERROR);
    assertThat(reconciled.getMessage()).isEqualTo("reconcile step desired failed: IllegalStateException: quota exceeded");
    assertThat(client.v1().events().inNamespace("team-a").list().getItems())
        .singleElement().satisfies(e -> {
          assertThat(e.getReason()).isEqualTo("ReconcileError");
          assertThat(e.getType()).isEqualTo("Warning");
          assertThat(e.getMessage()).isEqualTo(reconciled.getMessage());
        });

    job.setStatus(status);
    assertThat(reconciler.updateErrorStatus(job, null, failure).getResource()).isEmpty();
    assertThat(client.v1().events().inNamespace("team-a").list().getItems()).hasSize(1);

    TrainingJobStatus next = StatusAggregator.reconcileFailed(job, reconciled.getMessage(), Instant.now());
    StatusAggregator.reconciled(job, next, Instant.now());
    assertThat(Conditions.isTrue(next.conditions, Conditions.RECONCILED)).isTrue();
  }
}
