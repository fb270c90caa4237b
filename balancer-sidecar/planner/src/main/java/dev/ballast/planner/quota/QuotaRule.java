package dev.ballast.planner.quota;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;

import java.util.Arrays;

/**
 * The per-step quota rule (docs/quota-rule.md is the normative text; the Python client implements the same steps).
 * From one step's exact all-gathered counts and the current placement it computes, with integer arithmetic only,
 * how many tokens each copy of each expert takes (unequal shares allowed) and which source sends them, nearest
 * copies first. Same inputs give the same output on every rank.
 */
public final class QuotaRule {
    private static final int LINK_CLASSES = 4;

    private QuotaRule() {
    }

    /**
     * @param counts   row-major [source EP rank][expert] token-assignment counts, length ep × experts, all >= 0
     * @param capacity per-GPU token capacity, or null for none
     */
    public static QuotaResult apply(GroupTopology gt, LayerPlacement p, long[] counts, long[] capacity) {
        final int ep = gt.ep();
        final int experts = p.experts();
        if (p.gpus() != ep) {
            throw new IllegalArgumentException("placement has " + p.gpus() + " GPUs, group has " + ep);
        }
        if (counts.length != ep * experts) {
            throw new IllegalArgumentException("counts length " + counts.length + " != ep × experts = " + (ep * experts));
        }
        if (capacity != null && capacity.length != ep) {
            throw new IllegalArgumentException("capacity length " + capacity.length + " != ep " + ep);
        }
        // Step 1: expert totals.
        long[] total = new long[experts];
        for (int s = 0; s < ep; s++) {
            int row = s * experts;
            for (int e = 0; e < experts; e++) {
                long c = counts[row + e];
                if (c < 0) {
                    throw new IllegalArgumentException("negative count at source " + s + " expert " + e);
                }
                total[e] += c;
            }
        }
        long all = 0;
        for (long t : total) {
            all += t;
        }
        // Step 2: forced load of single-copy experts; collect multi-copy experts.
        long[] base = new long[ep];
        int multi = 0;
        for (int e = 0; e < experts; e++) {
            if (p.copies(e) == 0) {
                throw new IllegalArgumentException("expert " + e + " has no copy");
            }
            if (p.copies(e) == 1) {
                base[p.copyGpu(p.copyStart(e))] += total[e];
            } else {
                multi++;
            }
        }
        // Step 3: multi-copy experts by load descending, then expert index ascending.
        int[] order = sortByLoadDescending(total, p, multi);
        // Step 4: each copy's near demand: its node's tokens for the expert, split among the expert's copies on that node.
        long[] copyQuota = new long[p.totalCopies()];
        long[] near = new long[p.totalCopies()];
        long[] nodeSum = new long[gt.nodeCount()];
        int[] nodeCopies = new int[gt.nodeCount()];
        long hi = 0;
        long[] reach = base.clone();
        int[] rank = new int[gt.nodeCount()];
        for (int e : order) {
            int start = p.copyStart(e);
            int k = p.copies(e);
            for (int s = 0; s < ep; s++) {
                nodeSum[gt.nodeIndex(s)] += counts[s * experts + e];
            }
            for (int j = 0; j < k; j++) {
                nodeCopies[gt.nodeIndex(p.copyGpu(start + j))]++;
            }
            for (int j = 0; j < k; j++) {
                int n = gt.nodeIndex(p.copyGpu(start + j));
                long d = nodeSum[n];
                int m = nodeCopies[n];
                near[start + j] = d / m + (rank[n] < d % m ? 1 : 0);
                rank[n]++;
                reach[p.copyGpu(start + j)] += total[e];
            }
            Arrays.fill(nodeSum, 0);
            Arrays.fill(nodeCopies, 0);
            Arrays.fill(rank, 0);
        }
        long maxBase = 0;
        for (int g = 0; g < ep; g++) {
            maxBase = Math.max(maxBase, base[g]);
            hi = Math.max(hi, reach[g]);
        }
        long lo = Math.max(ceilDiv(all, ep), maxBase);
        hi = Math.max(hi, lo);
        // Step 5: capacities apply only if the rule can meet them at all.
        long[] load = new long[ep];
        long[] cap = capacity;
        boolean exceeded = false;
        if (cap != null && !fill(hi, cap, base, order, total, near, p, load, null)) {
            cap = null;
            exceeded = true;
        }
        // Step 6: binary search the smallest feasible threshold.
        while (lo < hi) {
            long mid = lo + (hi - lo) / 2;
            if (fill(mid, cap, base, order, total, near, p, load, null)) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        long threshold = lo;
        fill(threshold, cap, base, order, total, near, p, load, copyQuota);
        for (int e = 0; e < experts; e++) {
            if (p.copies(e) == 1) {
                copyQuota[p.copyStart(e)] = total[e];
            }
        }
        return route(gt, p, counts, threshold, exceeded, load, copyQuota);
    }

    /** Greedy fill at threshold T; writes quotas when {@code quota} is non-null. Returns whether every token found a copy. */
    private static boolean fill(long t, long[] cap, long[] base, int[] order, long[] total, long[] near,
                                LayerPlacement p, long[] load, long[] quota) {
        int ep = base.length;
        for (int g = 0; g < ep; g++) {
            if (base[g] > limit(t, cap, g)) {
                return false;
            }
        }
        System.arraycopy(base, 0, load, 0, ep);
        for (int e : order) {
            long rem = total[e];
            int start = p.copyStart(e);
            int end = start + p.copies(e);
            // Pass A: each copy first takes its near demand, within its slack.
            for (int c = start; c < end && rem > 0; c++) {
                int g = p.copyGpu(c);
                long a = Math.min(Math.min(near[c], Math.max(0, limit(t, cap, g) - load[g])), rem);
                load[g] += a;
                rem -= a;
                if (quota != null) {
                    quota[c] = a;
                }
            }
            // Pass B: the rest goes to copies in ascending GPU order, each up to its slack.
            for (int c = start; c < end && rem > 0; c++) {
                int g = p.copyGpu(c);
                long a = Math.min(rem, Math.max(0, limit(t, cap, g) - load[g]));
                load[g] += a;
                rem -= a;
                if (quota != null) {
                    quota[c] += a;
                }
            }
            if (rem > 0) {
                return false;
            }
        }
        return true;
    }

    private static long limit(long t, long[] cap, int g) {
        return cap == null ? t : Math.min(t, cap[g]);
    }

    /** Splits each copy's quota among sources: link class by link class (same GPU, NVLink, network, cross-rack), sources ascending, copies ascending. */
    private static QuotaResult route(GroupTopology gt, LayerPlacement p, long[] counts, long threshold, boolean exceeded,
                                     long[] load, long[] copyQuota) {
        int ep = gt.ep();
        int experts = p.experts();
        int capacity = ep * experts + p.totalCopies();
        int[] fs = new int[capacity];
        int[] fc = new int[capacity];
        long[] ft = new long[capacity];
        int n = 0;
        long[] avail = new long[ep];
        long[] remaining = new long[16];
        for (int e = 0; e < experts; e++) {
            int start = p.copyStart(e);
            int k = p.copies(e);
            if (k == 1) {
                for (int s = 0; s < ep; s++) {
                    long c = counts[s * experts + e];
                    if (c > 0) {
                        fs[n] = s;
                        fc[n] = start;
                        ft[n++] = c;
                    }
                }
                continue;
            }
            if (remaining.length < k) {
                remaining = new long[k];
            }
            System.arraycopy(copyQuota, start, remaining, 0, k);
            for (int s = 0; s < ep; s++) {
                avail[s] = counts[s * experts + e];
            }
            for (int cls = 0; cls < LINK_CLASSES; cls++) {
                for (int s = 0; s < ep; s++) {
                    if (avail[s] == 0) {
                        continue;
                    }
                    for (int j = 0; j < k && avail[s] > 0; j++) {
                        if (remaining[j] == 0 || gt.linkClass(s, p.copyGpu(start + j)) != cls) {
                            continue;
                        }
                        long x = Math.min(avail[s], remaining[j]);
                        avail[s] -= x;
                        remaining[j] -= x;
                        fs[n] = s;
                        fc[n] = start + j;
                        ft[n++] = x;
                    }
                }
            }
        }
        return new QuotaResult(threshold, exceeded, load.clone(), copyQuota, fs, fc, ft, n);
    }

    static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    private static int[] sortByLoadDescending(long[] total, LayerPlacement p, int multi) {
        int experts = total.length;
        long[] keys = new long[multi];
        int m = 0;
        for (int e = 0; e < experts; e++) {
            if (p.copies(e) >= 2) {
                if (total[e] >= (1L << 43) || experts > (1 << 20)) {
                    throw new ArithmeticException("expert load " + total[e] + " too large for the quota rule's sort key");
                }
                // Ascending sort of (load, -index) read backwards gives load descending, index ascending.
                keys[m++] = (total[e] << 20) | ((1 << 20) - 1 - e);
            }
        }
        Arrays.sort(keys);
        int[] order = new int[multi];
        for (int i = 0; i < multi; i++) {
            order[i] = (1 << 20) - 1 - (int) (keys[multi - 1 - i] & ((1 << 20) - 1));
        }
        return order;
    }
}
