package dev.ballast.planner.quota;

/**
 * Output of the quota rule for one EP group and layer. Copies are those of the placement's copy table
 * (expert-major, ascending GPU). Flows say how many tokens source GPU s sends to copy c; they are listed
 * expert by expert in the order the rule produced them.
 */
public final class QuotaResult {
    final long threshold;
    final boolean capacityExceeded;
    final long[] gpuLoad;
    final long[] copyQuota;
    final int[] flowSource;
    final int[] flowCopy;
    final long[] flowTokens;
    final int flows;

    QuotaResult(long threshold, boolean capacityExceeded, long[] gpuLoad, long[] copyQuota,
                int[] flowSource, int[] flowCopy, long[] flowTokens, int flows) {
        this.threshold = threshold;
        this.capacityExceeded = capacityExceeded;
        this.gpuLoad = gpuLoad;
        this.copyQuota = copyQuota;
        this.flowSource = flowSource;
        this.flowCopy = flowCopy;
        this.flowTokens = flowTokens;
        this.flows = flows;
    }

    /** The smallest threshold T the rule found feasible: no GPU computes more than T tokens. */
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

    public int flowCount() {
        return flows;
    }

    public int flowSource(int i) {
        return flowSource[i];
    }

    public int flowCopy(int i) {
        return flowCopy[i];
    }

    public long flowTokens(int i) {
        return flowTokens[i];
    }
}
