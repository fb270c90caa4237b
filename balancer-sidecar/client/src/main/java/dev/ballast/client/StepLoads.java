package dev.ballast.client;

import dev.ballast.contracts.plan.PlanVersion;

/**
 * One GPU's token counts for one optimizer step: {@code counts[i][e]} for layer {@code firstLayer + i} and expert e.
 * {@code adopted} is the plan the rank used for this step (null: the static layout); {@code timing} what the rank
 * measured of the step (null: nothing).
 */
public record StepLoads(long worldGeneration, long step, int gpuRank, int firstLayer, long[][] counts,
                         PlanVersion adopted, StepTiming timing) {
    /** The sidecar's limit (docs/protocol.md, "Limits"); refused at the caller so no buffer grows past it. */
    public static final int MAX_COUNTS = 65_536;

    public StepLoads {
        check(worldGeneration, step, gpuRank, firstLayer, counts);
    }

    /** A report without timings. */
    public StepLoads(long worldGeneration, long step, int gpuRank, int firstLayer, long[][] counts, PlanVersion adopted) {
        this(worldGeneration, step, gpuRank, firstLayer, counts, adopted, null);
    }

    /**
     * The checks every report passes before it is queued; returns the expert count (the rows' common length).
     * Negative counts are found with one OR-reduction per row (no branch per count); only a failing row is searched
     * again to name the layer and expert.
     */
    static int check(long worldGeneration, long step, int gpuRank, int firstLayer, long[][] counts) {
        if (worldGeneration < 0 || step < 0 || gpuRank < 0 || firstLayer < 0) {
            throw new IllegalArgumentException("worldGeneration, step, gpuRank and firstLayer must be >= 0");
        }
        if (counts.length == 0) {
            throw new IllegalArgumentException("a load report needs at least one layer");
        }
        int experts = counts[0].length;
        if ((long) counts.length * experts > MAX_COUNTS) {
            throw new IllegalArgumentException("a load report has at most " + MAX_COUNTS + " counts, this one has "
                    + counts.length + " layers x " + experts + " experts");
        }
        for (int l = 0; l < counts.length; l++) {
            long[] row = counts[l];
            if (row.length != experts) {
                throw new IllegalArgumentException("layer " + (firstLayer + l) + " has " + row.length
                        + " counts, layer " + firstLayer + " has " + experts);
            }
            long any = 0;
            for (long c : row) {
                any |= c;
            }
            if (any < 0) {
                for (int e = 0; e < experts; e++) {
                    if (row[e] < 0) {
                        throw new IllegalArgumentException("layer " + (firstLayer + l) + " expert " + e + ": negative count " + row[e]);
                    }
                }
            }
        }
        return experts;
    }

    /** A deep copy, so the caller may reuse its arrays after handing the report on. */
    public StepLoads copy() {
        long[][] c = new long[counts.length][];
        for (int i = 0; i < c.length; i++) {
            c[i] = counts[i].clone();
        }
        return new StepLoads(worldGeneration, step, gpuRank, firstLayer, c, adopted, timing);
    }
}
