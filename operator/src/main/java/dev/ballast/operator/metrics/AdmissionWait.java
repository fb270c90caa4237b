package dev.ballast.operator.metrics;

import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.status.Conditions;
import dev.ballast.operator.world.WorldStep;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * How long the world committed this reconcile waited for admission: from when the job's Admitted condition last
 * turned False (the job's first reconcile, or the previous world ending), else from the job's creation. Pure.
 */
public final class AdmissionWait {
  private AdmissionWait() {}

  /** The wait ended by {@code step}, present only when it commits a world. */
  public static Optional<Duration> of(TrainingJob job, WorldStep step, Instant now) {
    if (!(step instanceof WorldStep.Commit)) return Optional.empty();
    String since = job.getStatus() == null ? null : job.getStatus().conditions.stream()
        .filter(c -> Conditions.ADMITTED.equals(c.getType()) && "False".equals(c.getStatus()))
        .map(c -> c.getLastTransitionTime()).findFirst().orElse(null);
    if (since == null) since = job.getMetadata().getCreationTimestamp();
    if (since == null) return Optional.empty();
    Duration wait = Duration.between(Instant.parse(since), now);
    return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
  }
}
