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
   * The reason of {@code Admitted=False} while another job gives workers back for this one: it still waits for room
   * (growth still yields to it), and is admitted once that job's next world is.
   */
  public static final String AWAITING_RECLAIM = "AwaitingReclaim";

  /** Whether an Admitted condition's reason says the job waits for room (any resource, or a reclaim under way). */
  public static boolean isWaitingForRoom(String reason) {
    return reason != null && (reason.startsWith(PREFIX) || reason.equals(AWAITING_RECLAIM));
  }
}
