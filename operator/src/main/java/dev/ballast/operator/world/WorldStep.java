package dev.ballast.operator.world;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.List;

/** What the operator should do next about a job's world; decided by {@link WorldLifecycle}, carried out by the reconciler. */
public sealed interface WorldStep {

  /** No workers exist: choose nodes for a new world of this generation (gang admission). */
  record Place(long generation) implements WorldStep {}

  /** Old workers are still terminating; their names and GPUs are not free yet. */
  record Draining(int terminating) implements WorldStep {}

  /** Every pod of the new world exists and is gated: remove all gates together. */
  record Release(World world, List<Pod> gated) implements WorldStep {}

  /** Gates are removed; the scheduler has not bound every pod yet. */
  record AwaitBinding(World world, int bound, Instant deadline) implements WorldStep {}

  /** The gang did not come together: delete its pods (freeing their GPU promises) and place again later. */
  record RollBack(String reason, String message, List<Pod> pods) implements WorldStep {}

  /** Every pod is bound: the world becomes the job's current world. */
  record Commit(World world) implements WorldStep {}

  /** A committed world lost pods (deleted by someone): recreate them on their reserved nodes. */
  record Recreate(World world, List<Seat> missing) implements WorldStep {}

  /** The committed world runs; {@code ready} of its workers are running. */
  record Run(World world, int ready) implements WorldStep {}

  /** The job ends now: every worker succeeded, or one failed. Remaining workers are deleted. */
  record Finish(boolean succeeded, String reason, String message, List<Pod> toDelete) implements WorldStep {}

  /** The job has already ended; nothing to do. */
  record Ended() implements WorldStep {}

  /** spec.suspend is true: delete the workers, keep the job. */
  record Suspend(List<Pod> toDelete) implements WorldStep {}
}
