package dev.ballast.client;

import dev.ballast.planner.model.PlanVersion;

/**
 * One GPU's token counts for one optimizer step: {@code counts[i][e]} for layer {@code firstLayer + i} and expert e.
 * {@code adopted} is the plan the rank used for this step (null: the static layout).
 */
public record LoadReport(long worldGeneration, long step, int gpuRank, int firstLayer, long[][] counts,
                         PlanVersion adopted) {
    public LoadReport {
        if (worldGeneration < 0 || step < 0 || gpuRank < 0 || firstLayer < 0) {
            throw new IllegalArgumentException("worldGeneration, step, gpuRank and firstLayer must be >= 0");
        }
        if (counts.length == 0) {
            throw new IllegalArgumentException("a load report needs at least one layer");
        }
        int experts = counts[0].length;
        for (int l = 0; l < counts.length; l++) {
            if (counts[l].length != experts) {
                throw new IllegalArgumentException("layer " + (firstLayer + l) + " has " + counts[l].length
                        + " counts, layer " + firstLayer + " has " + experts);
            }
            for (int e = 0; e < experts; e++) {
                if (counts[l][e] < 0) {
                    throw new IllegalArgumentException("layer " + (firstLayer + l) + " expert " + e + ": negative count " + counts[l][e]);
                }
            }
        }
    }

    /** A deep copy, so the caller may reuse its arrays after handing the report on. */
    public LoadReport copy() {
        long[][] c = new long[counts.length][];
        for (int i = 0; i < c.length; i++) {
            c[i] = counts[i].clone();
        }
        return new LoadReport(worldGeneration, step, gpuRank, firstLayer, c, adopted);
    }
}
