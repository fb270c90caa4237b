package dev.ballast.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.status.Conditions;
import dev.ballast.operator.world.WorldStep;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReconcileMetricsTest {
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final ReconcileMetrics metrics = new ReconcileMetrics(registry);

  @Test
  void aStepThatThrowsCountsAsThatStepsErrorAndNamesTheStep() {
    assertThatThrownBy(() -> metrics.time(ReconcileStep.ADMISSION, () -> {
      throw new IllegalStateException("boom");
    })).isInstanceOf(ReconcileStepFailed.class)
        .hasMessage("reconcile step admission failed: IllegalStateException: boom")
        .satisfies(e -> assertThat(((ReconcileStepFailed) e).step()).isEqualTo(ReconcileStep.ADMISSION));
    assertThat(registry.get("ballast.reconcile.errors").tag("step", "admission").counter().count()).isEqualTo(1);
    assertThat(registry.get("ballast.reconcile.errors").tag("step", "world").counter().count()).isZero();
    assertThat(registry.get("ballast.reconcile.step").tag("step", "admission").timer().count()).isEqualTo(1);
  }

  @Test
  void aNestedFailureCountsOnceForTheInnerStep() {
    assertThatThrownBy(() -> metrics.time(ReconcileStep.STATUS, () -> metrics.time(ReconcileStep.DESIRED, () -> {
      throw new IllegalStateException("x");
    }))).isInstanceOf(ReconcileStepFailed.class);
    assertThat(registry.get("ballast.reconcile.errors").tag("step", "desired").counter().count()).isEqualTo(1);
    assertThat(registry.get("ballast.reconcile.errors").tag("step", "status").counter().count()).isZero();
  }

  @Test
  void successfulStepsAreTimedWithoutErrors() {
    assertThat(metrics.time(ReconcileStep.OBSERVE, () -> 42)).isEqualTo(42);
    assertThat(registry.get("ballast.reconcile.step").tag("step", "observe").timer().count()).isEqualTo(1);
    assertThat(registry.get("ballast.reconcile.errors").tag("step", "observe").counter().count()).isZero();
  }

  @Test
  void admissionWaitRunsFromWhenAdmittedTurnedFalse() {
    TrainingJob job = TestJobs.job("j", 1, 2, 8);
    job.setStatus(new TrainingJobStatus());
    job.getStatus().conditions = Conditions.set(List.of(), Conditions.ADMITTED, false, "Unschedulable", "no room",
        1, "2026-01-01T00:00:00Z");
    WorldStep commit = new WorldStep.Commit(null);
    Instant now = Instant.parse("2026-01-01T00:01:30Z");
    assertThat(AdmissionWait.of(job, commit, now)).contains(Duration.ofSeconds(90));
    assertThat(AdmissionWait.of(job, new WorldStep.Ended(), now)).isEmpty();

    job.getStatus().conditions = List.of();
    job.getMetadata().setCreationTimestamp("2026-01-01T00:01:00Z");
    assertThat(AdmissionWait.of(job, commit, now)).contains(Duration.ofSeconds(30));
  }
}
