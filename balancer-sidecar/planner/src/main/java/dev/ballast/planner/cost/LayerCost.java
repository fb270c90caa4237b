package dev.ballast.planner.cost;

/**
 * Predicted time and traffic of one MoE layer of one EP group for one step (forward + backward).
 * Times in seconds, bytes per step. {@code totalSec = computeSec + allToAllSec + exposedParamSec + quotaRuleSec};
 * {@code quotaRuleSec} is the per-step quota rule's CPU time on every rank, charged only when the quota rule routes the
 * layer (docs/cost-model.md, "Quota rule work").
 */
public record LayerCost(double computeSec, double allToAllSec, double paramSec, double exposedParamSec,
                        long maxTokens, double meanTokens, double interNodeTokenBytes, double interNodeParamBytes,
                        double paramBytes, double migrationBytes, double peakMemoryBytes, double quotaRuleSec) {
    public double totalSec() {
        return computeSec + allToAllSec + exposedParamSec + quotaRuleSec;
    }

    /** Compute-only imbalance: busiest GPU's tokens over the mean (1.0 when there are no tokens). */
    public double imbalance() {
        return meanTokens == 0 ? 1.0 : maxTokens / meanTokens;
    }
}
