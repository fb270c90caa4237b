package dev.ballast.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import dev.ballast.operator.api.WorldStatus;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class JobGaugesTest {
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final JobGauges gauges = new JobGauges(registry);
  final List<TrainingJob> cache = new ArrayList<>();

  static TrainingJob job(String namespace, String name, Phase phase, int desired, int ready, int restarts, long gen) {
    TrainingJob job = TestJobs.job(name, 1, 4, 8);
    job.getMetadata().setNamespace(namespace);
    TrainingJobStatus s = new TrainingJobStatus();
    s.phase = phase;
    s.desiredWorkers = desired;
    s.readyWorkers = ready;
    s.restarts = restarts;
    s.world = new WorldStatus();
    s.world.generation = gen;
    s.world.gpusPerWorker = 8;
    job.setStatus(s);
    return job;
  }

  /** The job has no running world, and its Admitted condition says {@code reason}. */
  static void notAdmitted(TrainingJob job, String reason) {
    job.getStatus().world = null;
    job.getStatus().conditions.add(new io.fabric8.kubernetes.api.model.ConditionBuilder().withType("Admitted")
        .withStatus("False").withReason(reason).build());
  }

  @Test
  void jobsWithoutARunningWorldAreCountedByWhyTheyWait() {
    TrainingJob quota = job("a", "quota", Phase.Pending, 0, 0, 0, 0);
    notAdmitted(quota, "ExceedsQuota");
    TrainingJob gpus = job("b", "gpus", Phase.Pending, 0, 0, 0, 0);
    notAdmitted(gpus, "InsufficientGPUs");
    TrainingJob alsoQuota = job("b", "also-quota", Phase.Pending, 0, 0, 0, 0);
    notAdmitted(alsoQuota, "ExceedsQuota");
    cache.addAll(List.of(quota, gpus, alsoQuota, job("a", "running", Phase.Running, 2, 2, 0, 1)));
    gauges.observe(() -> new ArrayList<>(cache).stream());
    assertThat(registry.get("ballast.jobs.not.admitted").tag("reason", "ExceedsQuota").gauge().value()).isEqualTo(2);
    assertThat(registry.get("ballast.jobs.not.admitted").tag("reason", "InsufficientGPUs").gauge().value())
        .isEqualTo(1);
    assertThat(registry.find("ballast.jobs.not.admitted").gauges()).as("a running job is not counted").hasSize(2);

    cache.remove(gpus);
    gauges.refresh();
    assertThat(registry.find("ballast.jobs.not.admitted").gauges()).as("a reason no job has goes away").hasSize(1);
  }

  double phase(Phase phase) {
    return registry.get("ballast.jobs").tag("phase", phase.name()).gauge().value();
  }

  @Test
  void jobsByPhaseFollowTheCacheAtEveryRead() {
    gauges.observe(() -> new ArrayList<>(cache).stream());
    assertThat(phase(Phase.Running)).isZero();
    cache.add(job("a", "j1", Phase.Running, 2, 2, 0, 1));
    cache.add(job("a", "j2", Phase.Running, 1, 0, 0, 1));
    cache.add(job("b", "j3", Phase.Pending, 0, 0, 0, 0));
    assertThat(phase(Phase.Running)).isEqualTo(2);
    assertThat(phase(Phase.Pending)).isEqualTo(1);
    cache.remove(0);
    assertThat(phase(Phase.Running)).isEqualTo(1);
    assertThat(registry.get("ballast.gpus").tag("state", "promised").gauge().value()).isEqualTo(8);
    assertThat(registry.get("ballast.gpus").tag("state", "running").gauge().value()).isZero();
  }

  @Test
  void aJobWithoutStatusCountsAsPending() {
    TrainingJob fresh = TestJobs.job("new", 1, 2, 8);
    cache.add(fresh);
    gauges.observe(cache::stream);
    assertThat(phase(Phase.Pending)).isEqualTo(1);
    assertThat(JobCensus.row(fresh)).isEqualTo(new JobCensus.JobRow("team-a", "new", 0, 0, 0, 0));
  }

  @Test
  void perJobSeriesFollowTheCacheOnRefreshAndVanishWithTheJob() {
    cache.add(job("a", "j1", Phase.Running, 2, 1, 3, 5));
    gauges.observe(cache::stream);
    assertThat(registry.get("ballast.job.gpus").tags("namespace", "a", "job", "j1", "state", "promised").gauge()
        .value()).isEqualTo(16);
    assertThat(registry.get("ballast.job.gpus").tags("namespace", "a", "job", "j1", "state", "running").gauge()
        .value()).isEqualTo(8);
    assertThat(registry.get("ballast.job.restarts").tags("namespace", "a", "job", "j1").gauge().value()).isEqualTo(3);
    assertThat(registry.get("ballast.job.world.generation").tags("namespace", "a", "job", "j1").gauge().value())
        .isEqualTo(5);

    cache.set(0, job("a", "j1", Phase.Restarting, 2, 0, 4, 5));
    gauges.refresh();
    assertThat(registry.get("ballast.job.restarts").tags("namespace", "a", "job", "j1").gauge().value()).isEqualTo(4);

    cache.clear();
    gauges.refresh();
    assertThat(registry.find("ballast.job.restarts").gauges()).isEmpty();
    assertThat(registry.find("ballast.job.gpus").gauges()).isEmpty();
  }
}
