package dev.ballast.agent.balancer;

import dev.ballast.contracts.status.BalancerStatus;
import dev.ballast.contracts.plan.PlanVersion;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * status.balancer as this balancer wants it, written through a {@link StatusStore}: a plan-sequence reservation at
 * once (it must be durable before a sequence of it is used), every other change at most every
 * {@link #MIN_INTERVAL_NANOS} on {@link #flush}. Not thread-safe; times are the caller's clock.
 */
final class StatusWriter {
    private static final Logger LOG = Logger.getLogger(StatusWriter.class.getName());
    static final long MIN_INTERVAL_NANOS = 2_000_000_000L;
    /** How often the step heartbeat is refreshed while steps advance. */
    static final long HEARTBEAT_EVERY_NANOS = 30_000_000_000L;

    private final StatusStore store;
    private BalancerStatus status;
    private boolean dirty;
    private long lastWrite = Long.MIN_VALUE / 2;
    private long lastHeartbeat = Long.MIN_VALUE / 2;

    /** Starts from the plan-sequence high-water mark the store holds (a restart never reuses a sequence). */
    StatusWriter(StatusStore store) {
        this.store = store;
        this.status = new BalancerStatus("0.0", store.loadPlanSequence(), -1, 1.0, 1.0, 1.0, null);
    }

    BalancerStatus current() {
        return status;
    }

    /** A new world generation: its static layout ("g.0") is what every rank runs until they adopt a plan. */
    void newGeneration(long generation) {
        change(new BalancerStatus(generation + ".0", status.planSequence(), -1, 1.0, 1.0, 1.0, status.heartbeat(),
                status.planError(), null));
    }

    /** Why the current world cannot be planned ("" once it can). */
    void planError(String error) {
        if (!status.planError().equals(error)) {
            change(status.withPlanError(error));
        }
    }

    /** The current world's first plan as {@link FirstPlanTracker} knows it now. */
    void firstPlan(BalancerStatus.FirstPlan first) {
        if (!Objects.equals(status.firstPlan(), first)) {
            change(status.withFirstPlan(first));
        }
    }

    /** The current world's stragglers (empty: none); written only when the set changes. */
    void stragglers(List<BalancerStatus.Straggler> now) {
        if (!status.stragglers().equals(now)) {
            change(status.withStragglers(now));
        }
    }

    /** Persists the sequence high-water mark now; throws when the store could not take it. */
    void reserveSequencesUpTo(long upTo, long nowNanos) {
        BalancerStatus s = new BalancerStatus(status.planVersion(), upTo, status.adoptedAtStep(),
                status.imbalanceBefore(), status.imbalanceAfter(), status.predictedSpeedup(), status.heartbeat(),
                status.planError(), status.firstPlan(), status.measured(), status.stragglers());
        store.write(s);
        status = s;
        dirty = false;
        lastWrite = nowNanos;
    }

    /** The predicted scores of the plan just published. */
    void planned(double imbalanceBefore, double imbalanceAfter, double predictedSpeedup) {
        change(new BalancerStatus(status.planVersion(), status.planSequence(), status.adoptedAtStep(),
                imbalanceBefore, imbalanceAfter, predictedSpeedup, status.heartbeat(), status.planError(),
                status.firstPlan(), status.measured(), status.stragglers()));
    }

    /** Every rank now runs {@code version} or newer; the last of them moved to it at {@code atStep}. */
    void adopted(PlanVersion version, long atStep) {
        if (!status.planVersion().equals(version.toString())) {
            change(new BalancerStatus(version.toString(), status.planSequence(), atStep, status.imbalanceBefore(),
                    status.imbalanceAfter(), status.predictedSpeedup(), status.heartbeat(), status.planError(),
                    status.firstPlan(), status.measured(), status.stragglers()));
        }
    }

    /**
     * The progress heartbeat the operator's progress deadline reads (docs/elastic.md): the newest complete step of
     * {@code generation}, with what the recent steps measured. Both are refreshed at once for a new generation and
     * otherwise at most every {@link #HEARTBEAT_EVERY_NANOS} while steps advance, so a running job does not write its
     * status every step; the measurements also when one of them appears or goes (a first step time under a new
     * plan), at most a few times per plan.
     */
    void progress(long generation, long step, BalancerStatus.Measured measured, long nowNanos) {
        BalancerStatus.StepHeartbeat beat = status.heartbeat();
        boolean newGeneration = beat == null || beat.generation() != generation;
        if (newGeneration || (beat.step() < step && nowNanos - lastHeartbeat >= HEARTBEAT_EVERY_NANOS)) {
            change(status.withHeartbeat(new BalancerStatus.StepHeartbeat(generation, step, Instant.now().toString()))
                    .withMeasured(measured));
            lastHeartbeat = nowNanos;
        } else if (!sameFields(status.measured(), measured)) {
            change(status.withMeasured(measured));
        }
    }

    /** Whether both measure the same things (the values aside). */
    private static boolean sameFields(BalancerStatus.Measured a, BalancerStatus.Measured b) {
        if (a == null || b == null) {
            return a == b;
        }
        return Double.isNaN(a.imbalanceBefore()) == Double.isNaN(b.imbalanceBefore())
                && Double.isNaN(a.imbalanceAfter()) == Double.isNaN(b.imbalanceAfter())
                && Double.isNaN(a.stepSecondsBefore()) == Double.isNaN(b.stepSecondsBefore())
                && Double.isNaN(a.stepSecondsAfter()) == Double.isNaN(b.stepSecondsAfter())
                && Double.isNaN(a.computeSecondsBefore()) == Double.isNaN(b.computeSecondsBefore())
                && Double.isNaN(a.computeSecondsAfter()) == Double.isNaN(b.computeSecondsAfter());
    }

    /** Writes a pending change when the last write is long enough ago; a failed write is retried on a later flush. */
    void flush(long nowNanos) {
        if (!dirty || nowNanos - lastWrite < MIN_INTERVAL_NANOS) {
            return;
        }
        try {
            store.write(status);
            dirty = false;
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "writing status.balancer failed; will retry", e);
        }
        lastWrite = nowNanos;
    }

    private void change(BalancerStatus s) {
        status = s;
        dirty = true;
    }
}
