package dev.ballast.operator.metrics;

import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import dev.ballast.operator.world.WorldLifecycle;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What the operator's per-job and fleet gauges show, read from jobs' status. Pure. */
public final class JobCensus {
  private JobCensus() {}

  /** One job's numbers: GPUs promised (the admitted world) and running, restarts and the world's generation. */
  public record JobRow(String namespace, String job, int gpusPromised, int gpusRunning, int restarts,
      long worldGeneration) {}

  /** Jobs per phase; every phase is present (0 when none), a job without status yet counts as Pending. */
  public static Map<Phase, Long> byPhase(List<TrainingJob> jobs) {
    Map<Phase, Long> counts = new EnumMap<>(Phase.class);
    for (Phase p : Phase.values()) counts.put(p, 0L);
    for (TrainingJob job : jobs) counts.merge(phase(job), 1L, Long::sum);
    return counts;
  }

  /**
   * Jobs without a running world, by the reason of their Admitted=False condition ({@link
   * WorldLifecycle#waitingReason}: InsufficientGPUs, ExceedsQuota, QueuedBehind, AwaitingReclaim, Placed, ...), sorted
   * by reason; a reason no job has is absent.
   */
  public static Map<String, Long> notAdmittedByReason(List<TrainingJob> jobs) {
    Map<String, Long> counts = new TreeMap<>();
    for (TrainingJob job : jobs) {
      String reason = WorldLifecycle.waitingReason(job);
      if (reason != null) counts.merge(reason, 1L, Long::sum);
    }
    return counts;
  }

  public static JobRow row(TrainingJob job) {
    TrainingJobStatus s = job.getStatus();
    int perWorker = s != null && s.world != null && s.world.gpusPerWorker != null
        ? s.world.gpusPerWorker : job.getSpec().gpusPerWorker;
    return new JobRow(job.getMetadata().getNamespace(), job.getMetadata().getName(),
        s == null ? 0 : orZero(s.desiredWorkers) * perWorker,
        s == null ? 0 : orZero(s.readyWorkers) * perWorker,
        s == null ? 0 : orZero(s.restarts),
        s == null || s.world == null || s.world.generation == null ? 0 : s.world.generation);
  }

  static Phase phase(TrainingJob job) {
    return job.getStatus() == null || job.getStatus().phase == null ? Phase.Pending : job.getStatus().phase;
  }

  private static int orZero(Integer value) {
    return value == null ? 0 : value;
  }
}
