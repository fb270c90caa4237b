package dev.ballast.operator.metrics;

import java.util.Locale;

/** The reconcile pipeline's steps, the {@code step} label of the reconcile metrics (a fixed set). */
public enum ReconcileStep {
  /** Reading pods, nodes and other jobs from the informer caches. */
  OBSERVE,
  /** Checking the spec. */
  VALIDATE,
  /** Deciding the world's next step and stopping what it stops. */
  WORLD,
  /** Gang admission and releasing admitted workers. */
  ADMISSION,
  /** Applying the desired children (Service, ConfigMap, balancer). */
  DESIRED,
  /** Aggregating and writing status. */
  STATUS;

  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
