package dev.ballast.tools.bench;

import dev.ballast.contracts.json.JsonWriter;

/**
 * One (trace, topology, planner) evaluation. {@code fractionOfBound} is the cost model's lower bound over the planned
 * time (at most 1: docs/cost-model.md, "Lower bound"); {@code fractionOfIdeal} the force-balanced reference's. Byte figures are per training step for the whole model (all layers and
 * EP groups); {@code paramBytesMoved} is the mean placement change per re-plan after the first plan (the first plan,
 * made from the static layout, when it is the only one).
 */
public record BenchResult(String trace, String planner, String topology, String parallelism, String mode, String balancerMode,
                          int scoredSteps, int replans, double fractionOfIdeal, double fractionOfBound, double imbalance, double imbalanceWorst,
                          double interNodeBytes, double interNodeTokenBytes, double interNodeParamBytes,
                          double paramBytesPerStep, double paramBytesMoved, double planMillisMedian, double planMillisP99,
                          double peakExpertMemoryBytes) {
    /**
     * The placement changes of all re-plans after the first, over the scored steps. Planners that re-plan at different
     * rates (the policy's gain check fires on the plan in use's imbalance) are compared by this, not by
     * {@code paramBytesMoved}: per re-plan, a planner that re-plans four times as often looks four times cheaper than it
     * is.
     */
    public double movedBytesPerStep() {
        return replans > 1 ? paramBytesMoved * (replans - 1) / Math.max(1, scoredSteps) : 0;
    }

    public void write(JsonWriter w) {
        w.beginObject()
                .field("trace", trace)
                .field("planner", planner)
                .field("topology", topology)
                .field("parallelism", parallelism)
                .field("mode", mode)
                .field("balancerMode", balancerMode)
                .field("scoredSteps", scoredSteps)
                .field("replans", replans)
                .field("fractionOfIdeal", fractionOfIdeal)
                .field("fractionOfBound", fractionOfBound)
                .field("imbalance", imbalance)
                .field("imbalanceWorst", imbalanceWorst)
                .field("interNodeBytes", interNodeBytes)
                .field("interNodeTokenBytes", interNodeTokenBytes)
                .field("interNodeParamBytes", interNodeParamBytes)
                .field("paramBytesPerStep", paramBytesPerStep)
                .field("paramBytesMoved", paramBytesMoved)
                .field("movedBytesPerStep", movedBytesPerStep())
                .field("planMillisMedian", planMillisMedian)
                .field("planMillisP99", planMillisP99)
                .field("peakExpertMemoryBytes", peakExpertMemoryBytes)
                .endObject();
    }
}
