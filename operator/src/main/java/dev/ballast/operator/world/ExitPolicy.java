package dev.ballast.operator.world;

import dev.ballast.operator.api.RecoverySpec;

/**
 * Whether a failed worker is worth a restart. Defaults (docs/elastic.md): 75 ("temporary failure") and
 * 128-255 (killed by a signal) are retryable, every other non-zero trainer exit code is fatal; a pod
 * Kubernetes disrupted (evicted, preempted, node shutdown) or that failed without a trainer exit code is
 * retryable. {@code spec.recovery.fatalExitCodes} wins over everything but a disruption.
 */
public final class ExitPolicy {
  private ExitPolicy() {}

  public static boolean retryable(WorkerPodView pod, RecoverySpec recovery) {
    if (pod.disrupted()) return true;
    var code = pod.trainerExitCode();
    if (code.isEmpty() || code.get() == 0) return true; // the trainer did not fail: the pod around it did
    int c = code.get();
    if (recovery.fatalExitCodes.contains(c)) return false;
    return recovery.retryableExitCodes.contains(c) || (c >= 128 && c <= 255);
  }
}
