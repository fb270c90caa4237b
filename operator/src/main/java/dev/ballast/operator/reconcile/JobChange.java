package dev.ballast.operator.reconcile;

import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.world.WorldLifecycle;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Which change of one job other jobs must hear of at once (docs/elastic.md, "Reclaim"), and which jobs: a job that
 * starts waiting for room, or whose spec changes while it waits (e.g. its priorityClassName), concerns the jobs that
 * may give workers back to it; a job whose reclaim ends (its next world committed, or the job gone) concerns the jobs
 * awaiting one.
 */
final class JobChange {
  private JobChange() {}

  static boolean matters(TrainingJob old, TrainingJob updated) {
    boolean waits = WorldLifecycle.waitingForRoom(updated) && (!WorldLifecycle.waitingForRoom(old)
        || !Objects.equals(old.getMetadata().getGeneration(), updated.getMetadata().getGeneration()));
    return waits || (WorldLifecycle.reclaiming(old) && !WorldLifecycle.reclaiming(updated));
  }

  /** The jobs among {@code jobs} that {@code changed}'s change concerns. */
  static Stream<TrainingJob> concerned(TrainingJob changed, Stream<TrainingJob> jobs) {
    return jobs.filter(j -> !j.getMetadata().getUid().equals(changed.getMetadata().getUid()))
        .filter(WorldLifecycle.waitingForRoom(changed) ? WorldLifecycle::mayLend : WorldLifecycle::awaitingReclaim);
  }
}
