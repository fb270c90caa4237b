package dev.ballast.operator.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.contracts.json.Json;
import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.BalancerMeasuredSchema;
import dev.ballast.operator.api.BalancerStatusSchema;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import dev.ballast.operator.api.WorldStatus;
import dev.ballast.operator.status.Conditions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The index page's document from jobs' status (no cluster). */
class JobIndexJsonTest {
  static TrainingJob running() {
    TrainingJob job = TestJobs.job("olmoe", 1, 4, 4);
    job.getMetadata().setNamespace("ml");
    TrainingJobStatus s = new TrainingJobStatus();
    s.phase = Phase.Running;
    s.desiredWorkers = 2;
    s.readyWorkers = 2;
    s.restarts = 1;
    s.world = new WorldStatus(3, 4, List.of(), null);
    s.balancer = new BalancerStatusSchema();
    s.balancer.planVersion = "3.7";
    s.balancer.imbalanceBefore = 2.1;
    s.balancer.imbalanceAfter = 1.05;
    s.balancer.measured = new BalancerMeasuredSchema();
    s.balancer.measured.imbalanceBefore = 2.3;
    s.balancer.measured.imbalanceAfter = 1.2;
    job.setStatus(s);
    return job;
  }

  static TrainingJob waiting(String name) {
    TrainingJob job = TestJobs.job(name, 4, 4, 8);
    TrainingJobStatus s = new TrainingJobStatus();
    s.phase = Phase.Pending;
    s.conditions = Conditions.set(List.of(), Conditions.ADMITTED, false, "InsufficientCapacity",
        "needs 4 workers of 8 GPUs; 2 nodes fit", 1, "2026-12-04T15:00:00Z");
    job.setStatus(s);
    return job;
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> rows(List<TrainingJob> jobs) {
    return (List<Map<String, Object>>) ((Map<String, Object>) Json.parse(JobIndexJson.of(jobs))).get("jobs");
  }

  @Test
  void aRunningJobShowsItsSizeImbalancePlanAndWorld() {
    Map<String, Object> row = rows(List.of(running())).get(0);
    assertThat(row).containsEntry("namespace", "ml").containsEntry("name", "olmoe").containsEntry("phase", "Running")
        .containsEntry("planVersion", "3.7").containsEntry("waiting", "")
        .containsEntry("open", "bin/ballast dashboard olmoe -n ml");
    assertThat(((Number) row.get("readyWorkers")).intValue()).isEqualTo(2);
    assertThat(((Number) row.get("desiredWorkers")).intValue()).isEqualTo(2);
    assertThat(((Number) row.get("gpus")).intValue()).isEqualTo(8);
    assertThat(((Number) row.get("worldGeneration")).intValue()).isEqualTo(3);
    assertThat(((Number) row.get("restarts")).intValue()).isEqualTo(1);
    assertThat((Map<String, Object>) row.get("imbalance")).containsEntry("predictedBefore", 2.1)
        .containsEntry("predictedAfter", 1.05).containsEntry("measuredBefore", 2.3).containsEntry("measuredAfter", 1.2);
  }

  @Test
  void aWaitingJobSaysWhyAndHasNoWorldYet() {
    Map<String, Object> row = rows(List.of(waiting("big"))).get(0);
    assertThat(row).containsEntry("phase", "Pending").containsEntry("planVersion", "")
        .containsEntry("waiting", "InsufficientCapacity: needs 4 workers of 8 GPUs; 2 nodes fit");
    assertThat(((Number) row.get("gpus")).intValue()).isZero();
    assertThat(((Number) row.get("worldGeneration")).intValue()).isZero();
    assertThat((Map<String, Object>) row.get("imbalance")).isEmpty();
  }

  @Test
  void aJobWithoutStatusIsPendingAndRowsAreSortedByNamespaceThenName() {
    TrainingJob fresh = TestJobs.job("aaa", 1, 1, 8);
    fresh.getMetadata().setNamespace("zz");
    List<Map<String, Object>> rows = rows(List.of(fresh, running(), waiting("big"), waiting("abc")));
    assertThat(rows).extracting(r -> r.get("namespace") + "/" + r.get("name"))
        .containsExactly("ml/olmoe", "team-a/abc", "team-a/big", "zz/aaa");
    assertThat(rows.get(3)).containsEntry("phase", "Pending").containsEntry("waiting", "");
  }

  @Test
  void aPausedJobSaysSoWhateverItsPhase() {
    TrainingJob job = running();
    job.getStatus().conditions = Conditions.set(List.of(), Conditions.RECONCILIATION_PAUSED, true,
        "ReconciliationPaused", "the annotation ballast.dev/pause-reconciliation is \"true\"", 1,
        "2026-12-04T15:00:00Z");
    assertThat(rows(List.of(job)).get(0)).containsEntry("waiting",
        "ReconciliationPaused: the annotation ballast.dev/pause-reconciliation is \"true\"");
  }

  @Test
  void aRunningJobDoesNotWaitEvenWithAnOldFalseCondition() {
    TrainingJob job = running();
    job.getStatus().conditions = Conditions.set(List.of(), Conditions.READY, false, "WorkersStarting", "1 of 2",
        1, "2026-12-04T15:00:00Z");
    assertThat(rows(List.of(job)).get(0)).containsEntry("waiting", "");
  }
}
