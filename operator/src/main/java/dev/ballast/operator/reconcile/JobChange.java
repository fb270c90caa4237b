package dev.ballast.operator.reconcile;

import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.world.WorldLifecycle;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * Which change of one job other jobs must hear of at once (docs/elastic.md, "Reclaim" and "Preemption"), and which
 * jobs: a job that starts waiting for room or for its quota, or whose spec changes while it waits (e.g. its
 * priorityClassName), concerns the jobs that may give way to it; a job that starts giving way concerns the job it
 * gives way to (which then waits for it, rather than finding the room taken); a job that stops giving way (a
 * reclaim's next world committed, a preempted job's workers stopped, or the job gone) concerns the jobs awaiting one;
 * a job that stops waiting (admitted or gone) concerns the jobs preempted for it. A job that starts queuing behind
 * others (docs/elastic.md, "Admission order") concerns the jobs waiting, so that the one ahead takes the room now; and
 * every such change concerns the jobs queued behind, which look again once the one ahead is admitted or gone.
 */
final class JobChange {
  private JobChange() {}

  static boolean matters(TrainingJob old, TrainingJob updated) {
    boolean waits = WorldLifecycle.waitingForMin(updated) && (!WorldLifecycle.waitingForMin(old)
        || !Objects.equals(old.getMetadata().getGeneration(), updated.getMetadata().getGeneration()));
    return waits || WorldLifecycle.givingWay(old) != WorldLifecycle.givingWay(updated)
        || (WorldLifecycle.waitingForMin(old) && !WorldLifecycle.waitingForMin(updated))
        || (WorldLifecycle.queuedBehind(updated) && !WorldLifecycle.queuedBehind(old)) || pauseChanged(updated);
  }

  /**
   * Whether the job's own reconcile must run to catch up with its pause annotation (paused, or resumed): an annotation
   * changes no generation, so the job's own informer does not deliver it.
   */
  static boolean pauseChanged(TrainingJob job) {
    return WorldLifecycle.paused(job) != WorldLifecycle.pauseShown(job);
  }

  /** Whether a deleted job concerns any other: one that gave way, or one that waited. */
  static boolean mattersWhenDeleted(TrainingJob deleted) {
    return WorldLifecycle.givingWay(deleted) || WorldLifecycle.waitingForMin(deleted);
  }

  /** The jobs among {@code jobs} that {@code changed}'s change concerns. */
  static Stream<TrainingJob> concerned(TrainingJob changed, Stream<TrainingJob> jobs) {
    boolean waits = WorldLifecycle.waitingForMin(changed);
    String key = WorldLifecycle.key(changed);
    String givesWayTo = WorldLifecycle.givingWay(changed) ? changed.getStatus().transition.forJob : null;
    boolean queued = WorldLifecycle.queuedBehind(changed);
    return jobs.filter(j -> !j.getMetadata().getUid().equals(changed.getMetadata().getUid()))
        .filter(j -> (waits && WorldLifecycle.mayGiveWay(j)) || WorldLifecycle.awaitingJobsGivingWay(j)
            || WorldLifecycle.preempted(j, key) || WorldLifecycle.key(j).equals(givesWayTo)
            || WorldLifecycle.queuedBehind(j) || (queued && WorldLifecycle.waitingForMin(j)));
  }
}
