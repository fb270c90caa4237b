package dev.ballast.contracts.status;

import java.util.List;

/**
 * TrainingJob {@code status.balancer}, owned by the balancer (field manager {@code ballast-balancer}); the operator's
 * CRD schema class declares the same fields (checked by a test on the operator side). planVersion is the newest plan
 * every rank has adopted ("g.0": the static layout of generation g); planSequence is the reserved high-water mark of
 * plan sequences (a restarted balancer starts above it). heartbeat (null until the first step) is the progress the
 * operator's progress deadline reads (docs/elastic.md). JSON form: {@link BalancerStatusJson}.
 */
public record BalancerStatus(String planVersion, long planSequence, long adoptedAtStep, double imbalanceBefore,
                             double imbalanceAfter, double predictedSpeedup, StepHeartbeat heartbeat) {

    /** The newest step every rank reported, of which world generation, and when the balancer first saw it (RFC 3339). */
    public record StepHeartbeat(long generation, long step, String at) {
    }

    public BalancerStatus withHeartbeat(StepHeartbeat beat) {
        return new BalancerStatus(planVersion, planSequence, adoptedAtStep, imbalanceBefore, imbalanceAfter,
                predictedSpeedup, beat);
    }

    public static final String PLAN_VERSION = "planVersion";
    public static final String PLAN_SEQUENCE = "planSequence";
    public static final String ADOPTED_AT_STEP = "adoptedAtStep";
    public static final String IMBALANCE_BEFORE = "imbalanceBefore";
    public static final String IMBALANCE_AFTER = "imbalanceAfter";
    public static final String PREDICTED_SPEEDUP = "predictedSpeedup";
    public static final String LAST_STEP_GENERATION = "lastStepGeneration";
    public static final String LAST_STEP = "lastStep";
    public static final String LAST_STEP_TIME = "lastStepTime";
    /** The field names in their encoding order (the last three only once there is a heartbeat). */
    public static final List<String> FIELDS = List.of(PLAN_VERSION, PLAN_SEQUENCE, ADOPTED_AT_STEP, IMBALANCE_BEFORE,
            IMBALANCE_AFTER, PREDICTED_SPEEDUP, LAST_STEP_GENERATION, LAST_STEP, LAST_STEP_TIME);
}
