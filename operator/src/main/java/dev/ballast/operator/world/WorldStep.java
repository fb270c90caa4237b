package dev.ballast.operator.world;

import dev.ballast.operator.api.WorldTransition;
import java.time.Instant;
import java.util.List;

/** What the operator should do next about a job's world; decided by {@link WorldLifecycle}, carried out by the reconciler. */
public sealed interface WorldStep {

  /**
   * No world runs and nothing blocks one: choose nodes for a new world of this generation (gang admission), of at most
   * {@code maxWorkers} (workers.max, or the size a reclaim gave workers back down to; admission keeps it within
   * spec.workers).
   */
  record Place(long generation, int maxWorkers) implements WorldStep {}

  /** Admission waits until {@code until}: a restart's backoff, or a gang that keeps failing to bind. */
  record Wait(String reason, String message, Instant until) implements WorldStep {}

  /** Pods of the world being replaced have not all stopped yet; no pod of the next world may exist before they have. */
  record Stopping(long generation, int remaining) implements WorldStep {}

  /**
   * Admission created every pod of the new world, but the pod cache shows only {@code shown} of them yet: they count
   * as existing until {@code deadline} ({@link UnseenPods#BOUND} after their creation), then as missing.
   */
  record AwaitPods(long generation, int shown, int size, Instant deadline) implements WorldStep {}

  /**
   * Every pod of the new world exists and some are gated: remove the gates together. {@code gated} are the seats
   * (indices) still gated: after an operator restart part of a world may already be released, and its pods are not
   * written again (the kubelet may be writing their status, and their release time stays what it was).
   */
  record Release(World world, List<Integer> gated) implements WorldStep {}

  /**
   * Gates are removed; the scheduler has not bound every pod yet.
   *
   * @param schedulerSays what the scheduler last said of an unbound pod (its PodScheduled=False message); null if
   *     nothing yet
   */
  record AwaitBinding(World world, int bound, Instant deadline, String schedulerSays) implements WorldStep {}

  /**
   * The gang did not come together: its pods are deleted (freeing their GPU promises) and admission tries again.
   * A gang with a bound worker (it may have started) is first retired: its generation is recorded
   * in status.retiredGeneration, and only the next reconcile deletes its pods, so its number is never used twice.
   *
   * @param nodes the gang's nodes, sorted and comma-separated (binding timeouts on the same nodes back off)
   * @param retires the generation this rollback retires, or 0 when no worker of the gang was bound
   */
  record RollBack(String reason, String message, String nodes, long retires) implements WorldStep {}

  /** Every pod is bound: the world becomes the job's current world. */
  record Commit(World world) implements WorldStep {}

  /**
   * The current world must be replaced: recorded in status before any pod is stopped.
   *
   * @param countsAsRestart true for failures (counted against restartLimit), false for voluntary resizes
   */
  record Transition(WorldTransition transition, boolean countsAsRestart) implements WorldStep {}

  /** The committed world runs; {@code ready} of its workers are running; {@code notes} are conditions to show. */
  record Run(World world, int ready, List<Note> notes) implements WorldStep {}

  /** A condition the running world reports (e.g. Resizing False while waiting for room, Progressing). */
  record Note(String type, boolean status, String reason, String message) {}

  /** The job ends now: every worker succeeded, or it failed for good. */
  record Finish(boolean succeeded, String reason, String message) implements WorldStep {}

  /** The job has already ended; nothing to do but stop what is left. */
  record Ended() implements WorldStep {}

  /** spec.suspend is true: stop the workers, keep the job; resuming starts a new world (transition recorded). */
  record Suspend(WorldTransition transition) implements WorldStep {}
}
