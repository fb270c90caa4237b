package dev.ballast.operator.admission;

import dev.ballast.operator.placement.Resources;
import java.util.Map;

/**
 * The reason of {@code Admitted=False} when a world does not fit, naming the resource that is short:
 * {@code InsufficientGPUs}, {@code InsufficientCPU}, {@code InsufficientMemory}, {@code InsufficientEphemeralStorage},
 * {@code InsufficientPods}, or {@code InsufficientResources} for an extended resource (the message names it).
 */
public final class InsufficientRoom {
  public static final String GPUS = "InsufficientGPUs";
  private static final String PREFIX = "Insufficient";
  private static final Map<String, String> REASONS = Map.of(Resources.GPU, GPUS, Resources.CPU, "InsufficientCPU",
      Resources.MEMORY, "InsufficientMemory", Resources.EPHEMERAL_STORAGE, "InsufficientEphemeralStorage",
      Resources.PODS, "InsufficientPods");

  private InsufficientRoom() {}

  public static String reason(String shortResource) {
    return REASONS.getOrDefault(shortResource, PREFIX + "Resources");
  }

  /**
   * The reason of {@code Admitted=False} while other jobs give back workers above their workers.min to this one (a
   * reclaim): it still waits for room (growth still yields to it), and is admitted once the workers given up have
   * stopped.
   */
  public static final String AWAITING_RECLAIM = "AwaitingReclaim";

  /** The same while at least one of the jobs giving way stops its world for this one (a preemption). */
  public static final String AWAITING_PREEMPTION = "AwaitingPreemption";

  /**
   * The reason of {@code Admitted=False} of a job whose world was stopped for a waiting job of higher priority, while
   * that job is admitted first: it waits for room too (growth still yields to it).
   */
  public static final String PREEMPTED = "Preempted";

  /**
   * The reason of {@code Admitted=False} of a job whose world would fit, but not beside the worlds of the jobs waiting
   * ahead of it, which take the room first ({@link AdmissionQueue}).
   */
  public static final String QUEUED_BEHIND = "QueuedBehind";

  /**
   * Whether an Admitted condition's reason says the job waits for room (any resource, a reclaim, a preemption, its
   * turn).
   */
  public static boolean isWaitingForRoom(String reason) {
    return reason != null && (reason.startsWith(PREFIX) || awaitsJobsGivingWay(reason) || reason.equals(PREEMPTED)
        || reason.equals(QUEUED_BEHIND));
  }

  /** Whether an Admitted condition's reason says other jobs give way to this one ({@link #AWAITING_RECLAIM}, ...). */
  public static boolean awaitsJobsGivingWay(String reason) {
    return AWAITING_RECLAIM.equals(reason) || AWAITING_PREEMPTION.equals(reason);
  }
}
