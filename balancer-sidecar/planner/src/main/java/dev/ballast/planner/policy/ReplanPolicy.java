package dev.ballast.planner.policy;

import java.util.function.DoubleSupplier;

/**
 * When the balancer plans, and whether a finished candidate is published: the one re-plan policy that the running
 * balancer and the bench both drive (docs/planner.md, "Re-plan policy"). Pure: the caller passes the time and reports
 * each observed step; nothing here reads a clock.
 * <ul>
 *   <li>The first plan of a world generation is wanted at once and starts as soon as a prediction exists.</li>
 *   <li>After that, a plan is wanted every {@code replanEverySteps} observed steps, or earlier when a gain check
 *       (every {@link #GAIN_CHECK_EVERY} steps) finds the plan in use predicting a mean busiest-GPU/mean above
 *       1 + {@link #GAIN_THRESHOLD}, and at least a fifth of the interval has passed since the last plan started.</li>
 *   <li>Duty cycle: after a plan, the next one waits at least as long as that plan took, so planning uses at most
 *       half of the balancer's time; after a failure it waits at least {@link #FAILURE_BACKOFF_NANOS}. The first plan
 *       of a generation does not wait.</li>
 *   <li>A candidate is published only if it was planned for the world generation that is current when it finishes.</li>
 * </ul>
 * Not thread-safe; one thread calls every method.
 */
public final class ReplanPolicy {
    /** Re-plan early when the plan in use predicts a mean busiest-GPU/mean above 1 + this. */
    public static final double GAIN_THRESHOLD = 0.10;
    /** Steps between two checks of the plan in use against the prediction. */
    public static final int GAIN_CHECK_EVERY = 10;
    /** The least wait after a failed plan, so a planner that keeps failing does not spin. */
    public static final long FAILURE_BACKOFF_NANOS = 1_000_000_000L;

    private int replanEverySteps;
    private boolean wanted = true;
    private boolean planning;
    private boolean firstOfGeneration = true;
    private boolean planInUse;
    private long stepsSincePlan;
    private long stepsSinceGainCheck;
    private long startedAt;
    private long notBefore = Long.MIN_VALUE;

    public ReplanPolicy(int replanEverySteps) {
        setInterval(replanEverySteps);
    }

    /** New settings (a changed job spec): the interval applies from now on, and a plan for them is wanted. */
    public void configure(int replanEverySteps) {
        setInterval(replanEverySteps);
        wanted = true;
    }

    private void setInterval(int steps) {
        if (steps < 1) {
            throw new IllegalArgumentException("replanEverySteps must be at least 1, got " + steps);
        }
        replanEverySteps = steps;
    }

    /** A new world generation: its first plan is wanted at once and is not held back by the duty cycle. */
    public void newGeneration() {
        wanted = true;
        firstOfGeneration = true;
        planInUse = false;
    }

    /**
     * One whole step was observed. {@code planInUseImbalance} (the predicted mean busiest-GPU/mean of the plan in
     * use) is asked for only when a gain check is due.
     */
    public void stepObserved(DoubleSupplier planInUseImbalance) {
        stepsSincePlan++;
        if (!planInUse || stepsSincePlan >= replanEverySteps) {
            wanted = true;
        } else if (++stepsSinceGainCheck >= GAIN_CHECK_EVERY) {
            stepsSinceGainCheck = 0;
            if (stepsSincePlan >= Math.max(1, replanEverySteps / 5)
                    && planInUseImbalance.getAsDouble() > 1 + GAIN_THRESHOLD) {
                wanted = true;
            }
        }
    }

    /** Whether a plan should start at {@code nowNanos} (the caller still needs a prediction to start one). */
    public boolean shouldStart(long nowNanos) {
        return wanted && !planning && (firstOfGeneration || nowNanos >= notBefore);
    }

    /** A plan started at {@code nowNanos}; the step counts restart from here. */
    public void started(long nowNanos) {
        wanted = false;
        planning = true;
        firstOfGeneration = false;
        startedAt = nowNanos;
        stepsSincePlan = 0;
        stepsSinceGainCheck = 0;
    }

    /**
     * The plan started last finished at {@code nowNanos}, for world generation {@code plannedFor}; returns whether to
     * publish it. A plan of a generation that is no longer current is dropped (its world's change already asked for a
     * new plan).
     */
    public boolean finished(long nowNanos, long plannedFor, long currentGeneration) {
        planning = false;
        notBefore = nowNanos + (nowNanos - startedAt);
        if (plannedFor != currentGeneration) {
            return false;
        }
        planInUse = true;
        return true;
    }

    /**
     * The plan started last failed at {@code nowNanos}. The next one is wanted on the usual terms (at once while no
     * plan is in use, else at the interval or a gain check), and waits for the back-off.
     */
    public void failed(long nowNanos) {
        planning = false;
        notBefore = nowNanos + Math.max(nowNanos - startedAt, FAILURE_BACKOFF_NANOS);
    }

    public boolean planning() {
        return planning;
    }
}
