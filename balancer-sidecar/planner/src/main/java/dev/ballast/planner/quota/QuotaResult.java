package dev.ballast.planner.quota;

import dev.ballast.planner.model.LayerPlacement;

/**
 * Output of the quota rule (or of the equal split) for one EP group and layer. Copies are those of the placement's
 * copy table (expert-major, ascending GPU). Flows say how many tokens source GPU s sends to copy c. An expert with a
 * single copy receives every source's count unchanged; those flows are not stored but produced from the counts.
 */
public final class QuotaResult {
    /** Receives one flow. */
    @FunctionalInterface
    public interface FlowVisitor {
        void flow(int expert, int source, int copy, long tokens);
    }

    private final LayerPlacement placement;
    private final long[] counts;
    private final long threshold;
    private final boolean capacityExceeded;
    private final long[] gpuLoad;
    private final long[] copyQuota;
    private final int[] expertFlowStart; // explicit flows of expert e: [start[e], start[e+1])
    private final int[] flowSource;
    private final int[] flowCopy;
    private final long[] flowTokens;
    private final boolean byQuotaRule;

    QuotaResult(LayerPlacement placement, long[] counts, long threshold, boolean capacityExceeded, long[] gpuLoad,
                long[] copyQuota, int[] expertFlowStart, int[] flowSource, int[] flowCopy, long[] flowTokens,
                boolean byQuotaRule) {
        this.placement = placement;
        this.counts = counts;
        this.threshold = threshold;
        this.capacityExceeded = capacityExceeded;
        this.gpuLoad = gpuLoad;
        this.copyQuota = copyQuota;
        this.expertFlowStart = expertFlowStart;
        this.flowSource = flowSource;
        this.flowCopy = flowCopy;
        this.flowTokens = flowTokens;
        this.byQuotaRule = byQuotaRule;
    }

    /**
     * True when the quota rule produced this routing (every rank runs it each step: the cost model charges its CPU
     * time), false for the equal split (no per-step work beyond a division).
     */
    public boolean byQuotaRule() {
        return byQuotaRule;
    }

    /**
     * The threshold T the rule settled on: feasible, and within 1/1024 of the rule's lower bound above the smallest
     * feasible one. No GPU computes more than T tokens.
     */
    public long threshold() {
        return threshold;
    }

    /** True when the capacities could not be met and the rule ignored them (tokens are still all assigned). */
    public boolean capacityExceeded() {
        return capacityExceeded;
    }

    public long gpuLoad(int g) {
        return gpuLoad[g];
    }

    public int gpus() {
        return gpuLoad.length;
    }

    public long copyQuota(int copy) {
        return copyQuota[copy];
    }

    public int copies() {
        return copyQuota.length;
    }

    /** The counts this result was computed from (row-major [source][expert]). */
    public long[] counts() {
        return counts;
    }

    /**
     * Visits every non-zero flow, expert by expert; within an expert, single-copy flows by ascending source, others
     * in the order the rule produced them (link class, then source, then copy).
     */
    public void forEachFlow(FlowVisitor v) {
        int ep = placement.gpus();
        int experts = placement.experts();
        for (int e = 0; e < experts; e++) {
            int a = expertFlowStart[e];
            int b = expertFlowStart[e + 1];
            if (a == b && placement.copies(e) == 1) {
                int copy = placement.copyStart(e);
                for (int s = 0; s < ep; s++) {
                    long c = counts[s * experts + e];
                    if (c > 0) {
                        v.flow(e, s, copy, c);
                    }
                }
            } else {
                for (int i = a; i < b; i++) {
                    v.flow(e, flowSource[i], flowCopy[i], flowTokens[i]);
                }
            }
        }
    }
}
