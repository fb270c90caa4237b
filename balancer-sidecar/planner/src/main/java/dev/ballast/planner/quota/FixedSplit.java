package dev.ballast.planner.quota;

import dev.ballast.planner.model.LayerPlacement;

/**
 * A routing in which each (source, expert)'s count is split over the expert's copies by a fixed function of that count
 * alone, with no search across experts: EPLB's {@link EqualSplit} and a plan's {@link PlannedSplit}. Flows come out
 * expert by expert, then by source, then by copy; a single-copy expert's flows are implied by the counts.
 */
final class FixedSplit {
    /** Fills {@code shares[0..k)} with source {@code s}'s tokens for each of expert {@code e}'s k copies (sum = count). */
    @FunctionalInterface
    interface Shares {
        void split(int source, int expert, long count, long[] shares);
    }

    private FixedSplit() {
    }

    static QuotaResult apply(LayerPlacement p, long[] counts, boolean byQuotaRule, Shares rule) {
        int ep = p.gpus();
        int experts = p.experts();
        int capacity = 0;
        int widest = 1;
        for (int e = 0; e < experts; e++) {
            if (p.copies(e) == 0) {
                throw new IllegalArgumentException("expert " + e + " has no copy");
            }
            if (p.copies(e) > 1) {
                capacity += ep * p.copies(e);
                widest = Math.max(widest, p.copies(e));
            }
        }
        int[] start = new int[experts + 1];
        int[] fs = new int[capacity];
        int[] fc = new int[capacity];
        long[] ft = new long[capacity];
        long[] quota = new long[p.totalCopies()];
        long[] load = new long[ep];
        long[] shares = new long[widest];
        int n = 0;
        for (int e = 0; e < experts; e++) {
            start[e] = n;
            int first = p.copyStart(e);
            int k = p.copies(e);
            for (int s = 0; s < ep; s++) {
                long c = counts[s * experts + e];
                if (c == 0) {
                    continue;
                }
                if (k == 1) {
                    quota[first] += c;
                    load[p.copyGpu(first)] += c;
                    continue;
                }
                rule.split(s, e, c, shares);
                for (int j = 0; j < k; j++) {
                    if (shares[j] == 0) {
                        continue;
                    }
                    fs[n] = s;
                    fc[n] = first + j;
                    ft[n++] = shares[j];
                    quota[first + j] += shares[j];
                    load[p.copyGpu(first + j)] += shares[j];
                }
            }
        }
        start[experts] = n;
        long max = 0;
        for (long l : load) {
            max = Math.max(max, l);
        }
        return new QuotaResult(p, counts, max, false, load, quota, start, fs, fc, ft, byQuotaRule);
    }
}
