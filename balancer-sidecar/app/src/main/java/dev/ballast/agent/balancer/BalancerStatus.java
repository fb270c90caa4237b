package dev.ballast.agent.balancer;

/**
 * TrainingJob {@code status.balancer}, owned by the balancer (field manager {@code ballast-balancer}).
 * planVersion is the newest plan every rank has adopted ("g.0": the static layout of generation g);
 * planSequence is the reserved high-water mark of plan sequences (a restarted balancer starts above it).
 */
public record BalancerStatus(String planVersion, long planSequence, long adoptedAtStep, double imbalanceBefore,
                             double imbalanceAfter, double predictedSpeedup) {
}
