package dev.ballast.planner.quota;

import dev.ballast.planner.model.LayerPlacement;

/**
 * EPLB-style routing: each source splits its tokens for an expert equally among the expert's copies,
 * the remainder going one token each to copies starting at index (source mod copies).
 */
public final class EqualSplit {
    private EqualSplit() {
    }

    public static QuotaResult apply(LayerPlacement p, long[] counts) {
        int ep = p.gpus();
        int experts = p.experts();
        int capacity = ep * p.totalCopies();
        int[] fs = new int[capacity];
        int[] fc = new int[capacity];
        long[] ft = new long[capacity];
        long[] quota = new long[p.totalCopies()];
        long[] load = new long[ep];
        int n = 0;
        for (int e = 0; e < experts; e++) {
            int start = p.copyStart(e);
            int k = p.copies(e);
            if (k == 0) {
                throw new IllegalArgumentException("expert " + e + " has no copy");
            }
            for (int s = 0; s < ep; s++) {
                long c = counts[s * experts + e];
                if (c == 0) {
                    continue;
                }
                long share = c / k;
                long rem = c % k;
                for (int j = 0; j < k; j++) {
                    long x = share + (Math.floorMod(j - s, k) < rem ? 1 : 0);
                    if (x == 0) {
                        continue;
                    }
                    fs[n] = s;
                    fc[n] = start + j;
                    ft[n++] = x;
                    quota[start + j] += x;
                    load[p.copyGpu(start + j)] += x;
                }
            }
        }
        long max = 0;
        for (long l : load) {
            max = Math.max(max, l);
        }
        return new QuotaResult(max, false, load, quota, fs, fc, ft, n);
    }
}
