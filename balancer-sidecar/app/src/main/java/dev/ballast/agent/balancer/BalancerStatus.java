package dev.ballast.agent.balancer;

/**
 * TrainingJob {@code status.balancer}, owned by the balancer (field manager {@code ballast-balancer}).
 * planVersion is the newest plan every rank has adopted ("g.0": the static layout of generation g);
 * planSequence is the reserved high-water mark of plan sequences (a restarted balancer starts above it).
 * heartbeat (null until the first step) is the progress the operator's progress deadline reads.
 */
public record BalancerStatus(String planVersion, long planSequence, long adoptedAtStep, double imbalanceBefore,
                             double imbalanceAfter, double predictedSpeedup, StepHeartbeat heartbeat) {

    /** The newest step every rank reported, of which world generation, and when the balancer first saw it (RFC 3339). */
    public record StepHeartbeat(long generation, long step, String at) {}

    public BalancerStatus withHeartbeat(StepHeartbeat beat) {
        return new BalancerStatus(planVersion, planSequence, adoptedAtStep, imbalanceBefore, imbalanceAfter,
                predictedSpeedup, beat);
    }
}
