package dev.ballast.planner.quota;

import dev.ballast.planner.model.LayerPlacement;

/**
 * EPLB-style routing: each source splits its tokens for an expert equally among the expert's physical replicas,
 * the remainder going one token each to replicas starting at index (source mod replicas); a copy standing for several
 * replicas on one GPU ({@link LayerPlacement#replicas}) computes the shares of all of them, as EPLB's runtime does.
 */
public final class EqualSplit {
    private EqualSplit() {
    }

    public static QuotaResult apply(LayerPlacement p, long[] counts) {
        int ep = p.gpus();
        int experts = p.experts();
        int capacity = 0;
        for (int e = 0; e < experts; e++) {
            if (p.copies(e) == 0) {
                throw new IllegalArgumentException("expert " + e + " has no copy");
            }
            if (p.copies(e) > 1) {
                capacity += ep * p.copies(e);
            }
        }
        int[] start = new int[experts + 1];
        int[] fs = new int[capacity];
        int[] fc = new int[capacity];
        long[] ft = new long[capacity];
        long[] quota = new long[p.totalCopies()];
        long[] load = new long[ep];
        int n = 0;
        for (int e = 0; e < experts; e++) {
            start[e] = n;
            int first = p.copyStart(e);
            int k = p.copies(e);
            int phys = p.physicalReplicas(e);
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
                long share = c / phys;
                long rem = c % phys;
                int replica = 0;
                for (int j = 0; j < k; j++) {
                    long x = 0;
                    for (int r = p.replicas(first + j); r > 0; r--, replica++) {
                        x += share + (Math.floorMod(replica - s, phys) < rem ? 1 : 0);
                    }
                    if (x == 0) {
                        continue;
                    }
                    fs[n] = s;
                    fc[n] = first + j;
                    ft[n++] = x;
                    quota[first + j] += x;
                    load[p.copyGpu(first + j)] += x;
                }
            }
        }
        start[experts] = n;
        long max = 0;
        for (long l : load) {
            max = Math.max(max, l);
        }
        return new QuotaResult(p, counts, max, false, load, quota, start, fs, fc, ft, false);
    }
}
