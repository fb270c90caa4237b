package dev.ballast.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The series bound of each operator metric (docs/metrics.md, "Cardinality"), checked by exercising the code with
 * many jobs and walking the registry: a new label, or a ballast metric without a documented bound, fails here.
 */
class OperatorMetricCardinalityTest {
  /** Series per metric as a function of the number of jobs J in the cache. */
  static final Map<String, IntUnaryOperator> BOUNDS = Map.ofEntries(
      Map.entry("ballast.jobs", j -> Phase.values().length),
      Map.entry("ballast.gpus", j -> 2),
      Map.entry("ballast.job.gpus", j -> 2 * j),
      Map.entry("ballast.job.restarts", j -> j),
      Map.entry("ballast.job.world.generation", j -> j),
      // the Admitted reasons the operator writes (docs/metrics.md): not per job
      Map.entry("ballast.jobs.not.admitted", j -> 32),
      Map.entry("ballast.reconcile.step", j -> ReconcileStep.values().length),
      Map.entry("ballast.reconcile.errors", j -> ReconcileStep.values().length),
      Map.entry("ballast.admission.wait", j -> 1),
      // one gauge per service-level bucket in a simple registry (le="..." series in Prometheus)
      Map.entry("ballast.admission.wait.histogram", j -> ReconcileMetrics.WAIT_BUCKETS.length),
      Map.entry("ballast.world.transitions", j -> 3));

  @Test
  void everyMetricStaysWithinItsDocumentedBound() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    exercise(registry);
    Map<String, Long> series = registry.getMeters().stream().map(m -> m.getId().getName())
        .filter(n -> n.startsWith("ballast.") && !n.equals("ballast.reconciles"))
        .collect(Collectors.groupingBy(n -> n, Collectors.counting()));
    assertThat(BOUNDS.keySet()).as("every ballast metric has a documented bound").containsAll(series.keySet());
    series.forEach((name, n) -> assertThat(n).as(name).isLessThanOrEqualTo(BOUNDS.get(name).applyAsInt(JOBS)));
    assertThat(series.get("ballast.job.gpus")).isEqualTo(2L * JOBS);
    for (Meter m : registry.getMeters()) {
      assertThat(m.getId().getTags()).as(m.getId().getName())
          .allSatisfy(t -> assertThat(t.getKey()).isIn("namespace", "job", "phase", "state", "step", "kind", "le", "reason"));
    }
  }

  @Test
  void everyExportedFamilyIsDocumented() throws Exception {
    var registry = new io.micrometer.prometheus.PrometheusMeterRegistry(
        io.micrometer.prometheus.PrometheusConfig.DEFAULT);
    exercise(registry);
    String docs = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", "metrics.md"));
    List<String> families = registry.scrape().lines().filter(l -> l.startsWith("# TYPE ballast_"))
        .map(l -> l.split(" ")[2].replaceFirst("_max$", "")).toList(); // a timer's _max: documented with it
    assertThat(families).contains("ballast_jobs", "ballast_jobs_not_admitted", "ballast_job_gpus", "ballast_reconcile_step_seconds",
        "ballast_reconcile_errors_total", "ballast_admission_wait_seconds", "ballast_world_transitions_total");
    assertThat(families).allSatisfy(f -> assertThat(docs).as("docs/metrics.md").contains("`" + f + "`"));
  }

  static final int JOBS = 300;

  /** Registers every operator meter of this package with many jobs in many namespaces, every step failing once. */
  static void exercise(io.micrometer.core.instrument.MeterRegistry registry) {
    JobGauges gauges = new JobGauges(registry);
    ReconcileMetrics reconcile = new ReconcileMetrics(registry);
    List<TrainingJob> jobs = new ArrayList<>();
    for (int i = 0; i < JOBS; i++) {
      Phase phase = Phase.values()[i % Phase.values().length];
      jobs.add(JobGaugesTest.job("ns-" + (i % 17), "job-" + i, phase, i % 5, i % 3, i % 4, i));
      if (phase == Phase.Pending) {
        JobGaugesTest.notAdmitted(jobs.get(i), List.of("InsufficientGPUs", "ExceedsQuota", "QueuedBehind").get(i % 3));
      }
    }
    gauges.observe(jobs::stream);
    for (ReconcileStep step : ReconcileStep.values()) {
      try {
        reconcile.time(step, () -> {
          throw new IllegalStateException(step.name());
        });
      } catch (ReconcileStepFailed expected) {
        // counted
      }
    }
    for (ReconcileMetrics.Replaced kind : ReconcileMetrics.Replaced.values()) reconcile.worldReplaced(kind);
    reconcile.admissionWaited(java.time.Duration.ofSeconds(3));
  }
}
