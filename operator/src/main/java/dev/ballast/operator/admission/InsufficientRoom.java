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

  /** Whether an Admitted condition's reason says the job waits for room (any resource). */
  public static boolean isWaitingForRoom(String reason) {
    return reason != null && reason.startsWith(PREFIX);
  }
}
