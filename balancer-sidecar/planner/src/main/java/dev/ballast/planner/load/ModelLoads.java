package dev.ballast.planner.load;

/**
 * Token-assignment counts for one step (or a prediction of one): per MoE layer, per data-parallel copy of the
 * layer's EP group, a row-major [source EP rank][expert] array of non-negative integers.
 */
public final class ModelLoads {
    private final int ep;
    private final int experts;
    private final long[][][] counts; // [layer][copy][source * experts + expert]

    public ModelLoads(int layers, int dp, int ep, int experts) {
        this.ep = ep;
        this.experts = experts;
        this.counts = new long[layers][dp][ep * experts];
    }

    public int layers() {
        return counts.length;
    }

    public int dp() {
        return counts[0].length;
    }

    public int ep() {
        return ep;
    }

    public int experts() {
        return experts;
    }

    /** The live array for (layer, copy); callers that keep it must not modify it after handing it on. */
    public long[] counts(int layer, int copy) {
        return counts[layer][copy];
    }

    /** Per-expert totals for (layer, copy). */
    public long[] expertTotals(int layer, int copy) {
        long[] t = new long[experts];
        long[] c = counts[layer][copy];
        for (int s = 0; s < ep; s++) {
            for (int e = 0; e < experts; e++) {
                t[e] += c[s * experts + e];
            }
        }
        return t;
    }
}
