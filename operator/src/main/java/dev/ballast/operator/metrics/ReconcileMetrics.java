package dev.ballast.operator.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The reconcile pipeline's own meters: duration and errors per step, admission wait, and world transitions by
 * kind. Labels come from fixed sets only (docs/metrics.md).
 */
public final class ReconcileMetrics {
  static final Duration[] WAIT_BUCKETS = {Duration.ofSeconds(1), Duration.ofSeconds(5),
      Duration.ofSeconds(15), Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofMinutes(5),
      Duration.ofMinutes(15), Duration.ofHours(1), Duration.ofHours(4)};

  private final Map<ReconcileStep, Timer> durations = new EnumMap<>(ReconcileStep.class);
  private final Map<ReconcileStep, Counter> errors = new EnumMap<>(ReconcileStep.class);
  private final Timer admissionWait;
  private final Map<Replaced, Counter> replaced = new EnumMap<>(Replaced.class);

  /** Why a world was replaced: the {@code kind} label of ballast_world_transitions_total. */
  public enum Replaced {
    /** A voluntary resize (growth, spec change, drain, reclaim). */
    RESIZE,
    /** A failure, counted against restartLimit. */
    RESTART,
    /** The world stopped for a waiting job of higher priority. */
    PREEMPTION;

    String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  public ReconcileMetrics(MeterRegistry registry) {
    for (ReconcileStep step : ReconcileStep.values()) {
      durations.put(step, Timer.builder("ballast.reconcile.step").tag("step", step.label())
          .description("Time spent in one step of a reconcile").register(registry));
      errors.put(step, Counter.builder("ballast.reconcile.errors").tag("step", step.label())
          .description("Reconciles that threw, by the step that threw").register(registry));
    }
    admissionWait = Timer.builder("ballast.admission.wait").serviceLevelObjectives(WAIT_BUCKETS)
        .description("From a world's first wait for admission (job creation, or the world before it ending)"
            + " until all its workers are bound")
        .register(registry);
    for (Replaced kind : Replaced.values()) {
      replaced.put(kind, Counter.builder("ballast.world.transitions").tag("kind", kind.label())
          .description("Worlds replaced, by kind: resize (voluntary), restart (after a failure) or preemption (for a"
              + " waiting job of higher priority)").register(registry));
    }
  }

  /** Runs one step, timing it; a throw counts as that step's error and is rethrown naming the step. */
  public <T> T time(ReconcileStep step, Supplier<T> body) {
    long start = System.nanoTime();
    try {
      return body.get();
    } catch (ReconcileStepFailed e) {
      throw e;
    } catch (RuntimeException e) {
      errors.get(step).increment();
      throw new ReconcileStepFailed(step, e);
    } finally {
      durations.get(step).record(Duration.ofNanos(System.nanoTime() - start));
    }
  }

  public void time(ReconcileStep step, Runnable body) {
    time(step, () -> {
      body.run();
      return null;
    });
  }

  public void admissionWaited(Duration wait) {
    admissionWait.record(wait);
  }

  public void worldReplaced(Replaced kind) {
    replaced.get(kind).increment();
  }
}
