package dev.ballast.tools.synth;

import dev.ballast.tools.trace.TraceHeader;
import dev.ballast.tools.trace.TraceSource;

import java.util.SplittableRandom;

/**
 * A seeded synthetic trace. Each step is computed from (seed, step) alone, so steps can be read in any order and
 * always give the same counts. Counts respect top-k: no expert gets more assignments than a source has tokens.
 */
public final class SyntheticTrace implements TraceSource {
    private final SyntheticSpec spec;
    private final int[][] rankOf;            // [layer][expert] popularity rank at step 0
    private final double[][][] sourceFactor; // [layer][source][expert]

    public SyntheticTrace(SyntheticSpec spec) {
        this.spec = spec;
        int e = spec.experts();
        rankOf = new int[spec.layers()][e];
        sourceFactor = new double[spec.layers()][spec.sources()][e];
        for (int l = 0; l < spec.layers(); l++) {
            SplittableRandom r = new SplittableRandom(mix(spec.seed(), 0x5EED0000L + l));
            int[] perm = new int[e];
            for (int i = 0; i < e; i++) {
                perm[i] = i;
            }
            for (int i = e - 1; i > 0; i--) {
                int j = r.nextInt(i + 1);
                int t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
            }
            for (int rank = 0; rank < e; rank++) {
                rankOf[l][perm[rank]] = rank;
            }
            for (int s = 0; s < spec.sources(); s++) {
                for (int x = 0; x < e; x++) {
                    sourceFactor[l][s][x] = Math.exp(spec.heterogeneity() * r.nextGaussian());
                }
            }
        }
    }

    public SyntheticSpec spec() {
        return spec;
    }

    @Override
    public String name() {
        return spec.name();
    }

    @Override
    public TraceHeader header() {
        return new TraceHeader("synthetic-" + spec.name(), spec.layers(), spec.experts(), spec.sources(), spec.topK(),
                "synthetic: " + spec.describe());
    }

    @Override
    public int steps() {
        return spec.steps();
    }

    @Override
    public long stepNumber(int i) {
        return i;
    }

    @Override
    public int[][][] counts(int step) {
        if (step < 0 || step >= spec.steps()) {
            throw new IndexOutOfBoundsException("step " + step + " outside [0, " + spec.steps() + ")");
        }
        int experts = spec.experts();
        int[][][] out = new int[spec.layers()][spec.sources()][];
        double shift = step * spec.driftRate();
        int k = (int) Math.floor(shift);
        double f = shift - k;
        double[] w = new double[experts];
        double[] x = new double[experts];
        for (int l = 0; l < spec.layers(); l++) {
            SplittableRandom r = new SplittableRandom(mix(spec.seed(), ((long) step << 20) ^ l));
            for (int e = 0; e < experts; e++) {
                int rank = rankOf[l][e];
                w[e] = (1 - f) * zipf(Math.floorMod(rank - k, experts)) + f * zipf(Math.floorMod(rank - k - 1, experts));
            }
            if (spec.burstProb() > 0 && r.nextDouble() < spec.burstProb()) {
                w[r.nextInt(experts)] *= spec.burstFactor();
            }
            for (int s = 0; s < spec.sources(); s++) {
                for (int e = 0; e < experts; e++) {
                    double noise = spec.noise() > 0 ? Math.exp(spec.noise() * r.nextGaussian()) : 1;
                    x[e] = w[e] * sourceFactor[l][s][e] * noise;
                }
                out[l][s] = apportion(x, spec.tokensPerSource(), spec.topK());
            }
        }
        return out;
    }

    private double zipf(int rank) {
        return Math.pow(1 + rank, -spec.zipfS());
    }

    /** tokens × topK assignments in proportion to weights, no expert above tokens (capped shares re-spread), integer by cumulative rounding. */
    static int[] apportion(double[] weight, int tokens, int topK) {
        int n = weight.length;
        double[] share = new double[n];
        boolean[] capped = new boolean[n];
        double budget = (double) tokens * topK;
        for (int round = 0; round <= topK; round++) {
            double free = 0;
            double fixed = 0;
            for (int e = 0; e < n; e++) {
                if (capped[e]) {
                    fixed += tokens;
                } else {
                    free += weight[e];
                }
            }
            boolean changed = false;
            for (int e = 0; e < n; e++) {
                if (!capped[e]) {
                    share[e] = free == 0 ? 0 : (budget - fixed) * weight[e] / free;
                    if (share[e] > tokens) {
                        capped[e] = true;
                        changed = true;
                    }
                } else {
                    share[e] = tokens;
                }
            }
            if (!changed) {
                break;
            }
        }
        int[] out = new int[n];
        double cum = 0;
        long prev = 0;
        for (int e = 0; e < n; e++) {
            cum += share[e];
            long next = Math.min((long) tokens * topK, Math.round(cum));
            out[e] = (int) Math.min(tokens, Math.max(0, next - prev));
            prev += out[e];
        }
        return out;
    }

    static long mix(long a, long b) {
        long z = a * 0x9E3779B97F4A7C15L + b;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
