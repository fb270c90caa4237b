package dev.ballast.contracts.status;

import java.util.List;

/**
 * TrainingJob {@code status.balancer}, owned by the balancer (field manager {@code ballast-balancer}); the operator's
 * CRD schema class declares the same fields (checked by a test on the operator side). planVersion is the newest plan
 * every rank has adopted ("g.0": the static layout of generation g); planSequence is the reserved high-water mark of
 * plan sequences (a restarted balancer starts above it). heartbeat (null until the first step) is the progress the
 * operator's progress deadline reads (docs/elastic.md). planError (empty when none) says why the balancer cannot plan
 * the current world; the operator turns it into a condition. firstPlan (null until the generation's first plan is
 * published) records where that plan came from and how many steps the world ran before every rank adopted it.
 * imbalanceBefore, imbalanceAfter and predictedSpeedup are the balancer's prediction for its newest plan; measured
 * (null until a step of the current world was measured) is what the ranks' reports showed. stragglers (empty when
 * none) are the current world's GPU ranks that stopped reporting or run persistently slower than their peers; the
 * operator raises the Stragglers condition from them.
 * JSON form: {@link BalancerStatusJson}.
 */
public record BalancerStatus(String planVersion, long planSequence, long adoptedAtStep, double imbalanceBefore,
                             double imbalanceAfter, double predictedSpeedup, StepHeartbeat heartbeat, String planError,
                             FirstPlan firstPlan, Measured measured, List<Straggler> stragglers) {

    /**
     * A GPU rank of the current world flagged by the balancer, with the worker pod it runs in: {@link #SLOW} when its
     * time in a window of complete steps stayed at or above a factor of its peers' median for several windows in a
     * row, {@link #SILENT} when it is missing from the last released steps (docs/elastic.md "Stragglers").
     */
    public record Straggler(long rank, String pod, String kind) {
        public static final String SLOW = "slow";
        public static final String SILENT = "silent";
    }

    /** The newest step every rank reported, of which world generation, and when the balancer first saw it (RFC 3339). */
    public record StepHeartbeat(long generation, long step, String at) {
    }

    /**
     * The first plan of world generation {@code generation}: {@code source} is {@link #FROM_HISTORY} when it was
     * computed from the load history before the world's first step was seen, {@link #FROM_STEPS} when from this
     * world's own steps; {@code steps} is the adoption step minus the world's first step (0: adopted at the first
     * step), -1 until every rank adopted it.
     */
    public record FirstPlan(long generation, String source, long steps) {
        public FirstPlan adoptedAfter(long steps) {
            return new FirstPlan(generation, source, steps);
        }
    }

    /**
     * What the current world's recent complete steps measured; NaN where nothing was measured (left out of the JSON).
     * {@code imbalanceBefore}/{@code imbalanceAfter}: busiest GPU's tokens over the mean, the reported counts of
     * recent steps placed by the static layout / by the plan every rank ran at that step (absent while none runs a
     * plan). {@code stepSecondsBefore}/{@code stepSecondsAfter}: the slowest rank's step time, the mean over recent
     * steps that ran the static layout (before the generation's first plan was adopted) / the balancer's plans;
     * {@code computeSecondsBefore}/{@code computeSecondsAfter} the same for the slowest rank's compute time (outside
     * communication).
     */
    public record Measured(double imbalanceBefore, double imbalanceAfter, double stepSecondsBefore,
                           double stepSecondsAfter, double computeSecondsBefore, double computeSecondsAfter) {
        /** The static layout's measured step time over the plan's (above 1: the plan is faster); NaN when unknown. */
        public double stepTimeSpeedup() {
            return stepSecondsAfter > 0 ? stepSecondsBefore / stepSecondsAfter : Double.NaN;
        }
    }

    public static final String FROM_HISTORY = "history";
    public static final String FROM_STEPS = "steps";

    /** A status without a plan error or a first plan. */
    public BalancerStatus(String planVersion, long planSequence, long adoptedAtStep, double imbalanceBefore,
                          double imbalanceAfter, double predictedSpeedup, StepHeartbeat heartbeat) {
        this(planVersion, planSequence, adoptedAtStep, imbalanceBefore, imbalanceAfter, predictedSpeedup, heartbeat, "",
                null, null);
    }

    /** A status without measurements. */
    public BalancerStatus(String planVersion, long planSequence, long adoptedAtStep, double imbalanceBefore,
                          double imbalanceAfter, double predictedSpeedup, StepHeartbeat heartbeat, String planError,
                          FirstPlan firstPlan) {
        this(planVersion, planSequence, adoptedAtStep, imbalanceBefore, imbalanceAfter, predictedSpeedup, heartbeat,
                planError, firstPlan, null);
    }

    /** A status without stragglers. */
    public BalancerStatus(String planVersion, long planSequence, long adoptedAtStep, double imbalanceBefore,
                          double imbalanceAfter, double predictedSpeedup, StepHeartbeat heartbeat, String planError,
                          FirstPlan firstPlan, Measured measured) {
        this(planVersion, planSequence, adoptedAtStep, imbalanceBefore, imbalanceAfter, predictedSpeedup, heartbeat,
                planError, firstPlan, measured, List.of());
    }

    public BalancerStatus {
        planError = planError == null ? "" : planError;
        stragglers = stragglers == null ? List.of() : List.copyOf(stragglers);
    }

    public BalancerStatus withHeartbeat(StepHeartbeat beat) {
        return new BalancerStatus(planVersion, planSequence, adoptedAtStep, imbalanceBefore, imbalanceAfter,
                predictedSpeedup, beat, planError, firstPlan, measured, stragglers);
    }

    public BalancerStatus withPlanError(String error) {
        return new BalancerStatus(planVersion, planSequence, adoptedAtStep, imbalanceBefore, imbalanceAfter,
                predictedSpeedup, heartbeat, error, firstPlan, measured, stragglers);
    }

    public BalancerStatus withFirstPlan(FirstPlan first) {
        return new BalancerStatus(planVersion, planSequence, adoptedAtStep, imbalanceBefore, imbalanceAfter,
                predictedSpeedup, heartbeat, planError, first, measured, stragglers);
    }

    public BalancerStatus withMeasured(Measured m) {
        return new BalancerStatus(planVersion, planSequence, adoptedAtStep, imbalanceBefore, imbalanceAfter,
                predictedSpeedup, heartbeat, planError, firstPlan, m, stragglers);
    }

    public BalancerStatus withStragglers(List<Straggler> s) {
        return new BalancerStatus(planVersion, planSequence, adoptedAtStep, imbalanceBefore, imbalanceAfter,
                predictedSpeedup, heartbeat, planError, firstPlan, measured, s);
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
    public static final String PLAN_ERROR = "planError";
    public static final String FIRST_PLAN_GENERATION = "firstPlanGeneration";
    public static final String FIRST_PLAN_SOURCE = "firstPlanSource";
    public static final String FIRST_PLAN_STEPS = "firstPlanSteps";
    public static final String MEASURED = "measured";
    public static final String STRAGGLERS = "stragglers";
    /**
     * The field names in their encoding order: the heartbeat's three only once there is one, planError only when
     * set, the first plan's generation and source once it is published, its steps once every rank adopted it, the
     * measured block once a step was measured, the stragglers only when there are any.
     */
    public static final List<String> FIELDS = List.of(PLAN_VERSION, PLAN_SEQUENCE, ADOPTED_AT_STEP, IMBALANCE_BEFORE,
            IMBALANCE_AFTER, PREDICTED_SPEEDUP, LAST_STEP_GENERATION, LAST_STEP, LAST_STEP_TIME, PLAN_ERROR,
            FIRST_PLAN_GENERATION, FIRST_PLAN_SOURCE, FIRST_PLAN_STEPS, MEASURED, STRAGGLERS);

    public static final String RANK = "rank";
    public static final String POD = "pod";
    public static final String KIND = "kind";
    /** A straggler's field names in their encoding order. */
    public static final List<String> STRAGGLER_FIELDS = List.of(RANK, POD, KIND);

    public static final String STEP_SECONDS_BEFORE = "stepSecondsBefore";
    public static final String STEP_SECONDS_AFTER = "stepSecondsAfter";
    public static final String STEP_TIME_SPEEDUP = "stepTimeSpeedup";
    public static final String COMPUTE_SECONDS_BEFORE = "computeSecondsBefore";
    public static final String COMPUTE_SECONDS_AFTER = "computeSecondsAfter";
    /** The measured block's field names in their encoding order; each only when measured. */
    public static final List<String> MEASURED_FIELDS = List.of(IMBALANCE_BEFORE, IMBALANCE_AFTER, STEP_SECONDS_BEFORE,
            STEP_SECONDS_AFTER, STEP_TIME_SPEEDUP, COMPUTE_SECONDS_BEFORE, COMPUTE_SECONDS_AFTER);
}
