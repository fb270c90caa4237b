package dev.ballast.planner.load;

import dev.ballast.planner.model.Parallelism;

/**
 * Maps a trace step's per-source counts onto the GPUs of each layer's stage (traces/README.md) and optionally rescales
 * every GPU to a fixed number of tokens. With S sources and G GPUs in the stage: if S <= G, GPU g takes source
 * floor(g·S/G), a source's counts split evenly among its GPUs (remainder one each to the lowest-indexed);
 * if S > G, GPU g takes the sum of sources s with floor(s·G/S) = g.
 */
public final class SourceMapping {
    private SourceMapping() {
    }

    /**
     * @param step            counts [layer][source][expert]
     * @param assignmentsPerGpu if > 0, each GPU's row is rescaled to this many token assignments (tokensPerGpu × topK)
     *                          by cumulative rounding, which keeps the total exact
     */
    public static ModelLoads toGpus(int[][][] step, Parallelism par, int experts, long assignmentsPerGpu) {
        int layers = step.length;
        int ep = par.ep();
        int stageGpus = ep * par.dp();
        ModelLoads out = new ModelLoads(layers, par.dp(), ep, experts);
        long[] row = new long[experts];
        for (int l = 0; l < layers; l++) {
            int[][] src = step[l];
            int sources = src.length;
            for (int q = 0; q < stageGpus; q++) {
                java.util.Arrays.fill(row, 0);
                if (sources <= stageGpus) {
                    int s = (int) ((long) q * sources / stageGpus);
                    int first = firstGpuOf(s, sources, stageGpus);
                    int k = firstGpuOf(s + 1, sources, stageGpus) - first;
                    int j = q - first;
                    for (int e = 0; e < experts; e++) {
                        long c = src[s][e];
                        row[e] = c / k + (j < c % k ? 1 : 0);
                    }
                } else {
                    for (int s = 0; s < sources; s++) {
                        if ((int) ((long) s * stageGpus / sources) == q) {
                            for (int e = 0; e < experts; e++) {
                                row[e] += src[s][e];
                            }
                        }
                    }
                }
                if (assignmentsPerGpu > 0) {
                    rescale(row, assignmentsPerGpu);
                }
                System.arraycopy(row, 0, out.counts(l, q / ep), (q % ep) * experts, experts);
            }
        }
        return out;
    }

    /** Smallest GPU q with floor(q·S/G) >= s. */
    private static int firstGpuOf(int s, int sources, int gpus) {
        return (int) (((long) s * gpus + sources - 1) / sources);
    }

    /** Rescales to {@code target} keeping proportions: x_e = floor(C_e·target/T) − floor(C_{e−1}·target/T) over prefix sums C. */
    static void rescale(long[] row, long target) {
        long total = 0;
        for (long v : row) {
            total += v;
        }
        if (total == 0) {
            return;
        }
        long cum = 0;
        long prev = 0;
        for (int e = 0; e < row.length; e++) {
            cum += row[e];
            long next = Math.multiplyHigh(cum, target) == 0 && cum * target >= 0 ? cum * target / total
                    : java.math.BigInteger.valueOf(cum).multiply(java.math.BigInteger.valueOf(target))
                    .divide(java.math.BigInteger.valueOf(total)).longValueExact();
            row[e] = next - prev;
            prev = next;
        }
    }
}
