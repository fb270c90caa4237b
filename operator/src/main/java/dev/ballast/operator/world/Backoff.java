package dev.ballast.operator.world;

import dev.ballast.operator.api.RecoverySpec;

/** Exponential backoff from spec.recovery: backoffSeconds × 2^n, at most maxBackoffSeconds. */
public final class Backoff {
  private Backoff() {}

  /** @param n how many times in a row this already happened (0 for the first) */
  public static long seconds(RecoverySpec recovery, int n) {
    return Math.min((long) recovery.backoffSeconds << Math.min(n, 20), recovery.maxBackoffSeconds);
  }
}
