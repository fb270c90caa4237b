package dev.ballast.operator.metrics;

/** A reconcile step threw: carries the step so that the job's status and event can name it. */
public final class ReconcileStepFailed extends RuntimeException {
  private final ReconcileStep step;

  public ReconcileStepFailed(ReconcileStep step, RuntimeException cause) {
    super("reconcile step " + step.label() + " failed: " + describe(cause), cause);
    this.step = step;
  }

  public ReconcileStep step() {
    return step;
  }

  private static String describe(Throwable e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + e.getMessage();
  }
}
