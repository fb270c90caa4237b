package dev.ballast.planner.quota;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;

import java.util.Arrays;

/**
 * Steps 1-9 of the quota rule (docs/quota-rule.md): totals, forced loads, order, near demands, bounds, the greedy fill
 * and the threshold search. After {@link #prepare} and {@link #search}, {@link #load} and {@link #quota} hold step 9's
 * loads and quotas. Its buffers are kept between calls (it allocates nothing once warm); not thread-safe.
 */
final class ThresholdSearch {
    /**
     * Step 8 stops bisecting once the threshold is known to within 1/1024 of its lower bound (the mean load): a GPU
     * may then carry up to 0.1% more than the smallest feasible threshold, and the search takes about five fills
     * fewer (docs/quota-rule.md).
     */
    private static final long SEARCH_TOLERANCE = 1024;

    private final NearShares nearShares = new NearShares();
    // Steps 1-5 (prepare): the placement and group they describe, and what the fill reads.
    LayerPlacement p;
    int ep;
    long[] total;
    long all;
    private long[] base = new long[0];
    private int multi;
    private int[] order = new int[0];
    /** slot[e]: expert e's position in order (its column in col), -1 for single-copy experts. */
    int[] slot = new int[0];
    /** The multi-copy experts' columns of counts, col[slot * ep + source]. */
    long[] col = new long[0];
    private long[] near = new long[0];
    private long[] nearRack = new long[0];
    private long lo;
    private long hi;
    // Steps 6-9: the fill's loads and quotas, and its lookup tables.
    long[] load = new long[0];
    long[] quota = new long[0];
    long threshold;
    private boolean[] done = new boolean[0];
    private int[] copyExpert = new int[0];
    private int[] gpuStart = new int[0];
    private int[] gpuCopy = new int[0];
    private int[] gpuFill = new int[0];
    // Scratch of prepare.
    private long[] totalBuf = new long[0];
    private long[] keys = new long[0];
    private long[] reach = new long[0];

    /**
     * Steps 1-5 for {@code p} on {@code counts} (row-major [source][expert]): with {@code totals} the per-expert sums
     * of {@code counts} as the caller computed them, else summed here.
     */
    void prepare(GroupTopology gt, LayerPlacement p, long[] counts, long[] totals) {
        final int ep = gt.ep();
        final int experts = p.experts();
        if (ep > (1 << 15)) {
            throw new IllegalArgumentException("EP group of " + ep + " GPUs exceeds the quota rule's limit of 32768");
        }
        if (p.gpus() != ep) {
            throw new IllegalArgumentException("placement has " + p.gpus() + " GPUs, group has " + ep);
        }
        if (counts.length != ep * experts) {
            throw new IllegalArgumentException("counts length " + counts.length + " != ep × experts = " + (ep * experts));
        }
        this.p = p;
        this.ep = ep;
        size(ep, experts, p.totalCopies());
        nearShares.size(gt.nodeCount(), gt.rackCount());
        // Step 1: expert totals.
        if (totals == null) {
            total = sumColumns(counts, ep, experts);
        } else if (totals.length != experts) {
            throw new IllegalArgumentException("totals length " + totals.length + " != experts " + experts);
        } else {
            total = totals;
        }
        all = 0;
        for (int e = 0; e < experts; e++) {
            all += total[e];
        }
        // Step 2: forced load of single-copy experts; collect multi-copy experts.
        Arrays.fill(base, 0, ep, 0);
        multi = 0;
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
        sortByLoadDescending(experts);
        // The multi-copy experts' columns, gathered in one pass over the rows (column reads are cache-hostile).
        if (col.length < multi * ep) {
            col = new long[multi * ep];
        }
        Arrays.fill(slot, 0, experts, -1);
        for (int i = 0; i < multi; i++) {
            slot[order[i]] = i;
        }
        for (int s = 0; s < ep; s++) {
            int row = s * experts;
            for (int i = 0; i < multi; i++) {
                col[i * ep + s] = counts[row + order[i]];
            }
        }
        // Step 4: each copy's near demand and rack share. Step 5's reach on the way.
        System.arraycopy(base, 0, reach, 0, ep);
        for (int i = 0; i < multi; i++) {
            int e = order[i];
            int start = p.copyStart(e);
            int k = p.copies(e);
            nearShares.split(gt, col, i * ep, p, start, k, near, nearRack);
            for (int j = 0; j < k; j++) {
                reach[p.copyGpu(start + j)] += total[e];
            }
        }
        long maxBase = 0;
        long maxReach = 0;
        for (int g = 0; g < ep; g++) {
            maxBase = Math.max(maxBase, base[g]);
            maxReach = Math.max(maxReach, reach[g]);
        }
        lo = Math.max((all + ep - 1) / ep, maxBase);
        hi = Math.max(maxReach, lo);
        buildCopyTables(experts);
    }

    /** Step 1 from the counts, rejecting a negative count. */
    private long[] sumColumns(long[] counts, int ep, int experts) {
        long[] sums = totalBuf;
        Arrays.fill(sums, 0, experts, 0);
        long signs = 0;
        for (int s = 0; s < ep; s++) {
            int row = s * experts;
            // Branch-free so the JIT can vectorize; a negative count sets the sign bit of {@code signs}.
            for (int e = 0; e < experts; e++) {
                long c = counts[row + e];
                signs |= c;
                sums[e] += c;
            }
        }
        if (signs < 0) {
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] < 0) {
                    throw new IllegalArgumentException("negative count at source " + i / experts + " expert " + i % experts);
                }
            }
        }
        return sums;
    }

    /** Grows the buffers to fit a group of {@code ep} GPUs, {@code experts} experts and {@code copies} copies. */
    private void size(int ep, int experts, int copies) {
        if (base.length < ep) {
            base = new long[ep];
            reach = new long[ep];
            load = new long[ep];
            gpuStart = new int[ep + 1];
            gpuFill = new int[ep];
        }
        if (slot.length < experts) {
            slot = new int[experts];
            order = new int[experts];
            keys = new long[experts];
            totalBuf = new long[experts];
            done = new boolean[experts];
        }
        if (near.length < copies) {
            near = new long[copies];
            nearRack = new long[copies];
            quota = new long[copies];
            copyExpert = new int[copies];
            gpuCopy = new int[copies];
        }
    }

    /** Each copy's expert, and the multi-copy copies on each GPU (ascending copy index), for pass C. */
    private void buildCopyTables(int experts) {
        Arrays.fill(gpuStart, 0, ep + 1, 0);
        for (int e = 0; e < experts; e++) {
            boolean several = p.copies(e) > 1;
            for (int c = p.copyStart(e); c < p.copyStart(e) + p.copies(e); c++) {
                copyExpert[c] = e;
                if (several) {
                    gpuStart[p.copyGpu(c) + 1]++;
                }
            }
        }
        for (int g = 0; g < ep; g++) {
            gpuStart[g + 1] += gpuStart[g];
        }
        System.arraycopy(gpuStart, 0, gpuFill, 0, ep);
        for (int c = 0; c < p.totalCopies(); c++) {
            if (p.copies(copyExpert[c]) > 1) {
                gpuCopy[gpuFill[p.copyGpu(c)]++] = c;
            }
        }
    }

    /** Fills {@code order[0, multi)} with the multi-copy experts, load descending, then index ascending. */
    private void sortByLoadDescending(int experts) {
        int m = 0;
        for (int e = 0; e < experts; e++) {
            if (p.copies(e) >= 2) {
                if (total[e] >= (1L << 49) || experts > (1 << 14)) {
                    throw new ArithmeticException("expert load " + total[e] + " too large for the quota rule's sort key");
                }
                // Ascending sort of (load, -index) read backwards gives load descending, index ascending.
                keys[m++] = (total[e] << 14) | ((1 << 14) - 1 - e);
            }
        }
        Arrays.sort(keys, 0, m);
        for (int i = 0; i < m; i++) {
            order[i] = (1 << 14) - 1 - (int) (keys[m - 1 - i] & ((1 << 14) - 1));
        }
    }

    /**
     * Steps 7-9 on the prepared placement: capacities (may be null), search, the final fill. Leaves {@code load} and
     * {@code quota} (single-copy experts included) as step 9 defines them; returns whether capacities were dropped.
     */
    boolean search(long[] capacity) {
        long lo = this.lo;
        long hi = this.hi;
        // Step 7: capacities apply only if the rule can meet them at all.
        long[] cap = capacity;
        boolean exceeded = false;
        if (cap != null && fill(hi, cap) >= 0) {
            cap = null;
            exceeded = true;
        }
        // Step 8: gallop up from lo in steps of max(1, lo/256), doubling, to the first feasible probe (hi is always
        // feasible), then bisect until the feasible hi is within lo/1024 of the infeasible side.
        long step = Math.max(1, lo / 256);
        long probe = lo;
        while (probe < hi) {
            if (fill(probe, cap) < 0) {
                hi = probe;
                break;
            }
            lo = probe + 1;
            probe = Math.min(hi, probe + step);
            step *= 2;
        }
        long tolerance = this.lo / SEARCH_TOLERANCE;
        while (hi - lo > tolerance) {
            long mid = lo + (hi - lo) / 2;
            if (fill(mid, cap) < 0) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        threshold = hi;
        fillAtThreshold(cap);
        return exceeded;
    }

    /** Step 9: the fill at the found threshold, single-copy experts' quotas included. */
    void fillAtThreshold(long[] cap) {
        fill(threshold, cap);
        for (int e = 0; e < p.experts(); e++) {
            if (p.copies(e) == 1) {
                quota[p.copyStart(e)] = total[e];
            }
        }
    }

    /**
     * Step 6, the greedy fill at threshold T into {@code load} and {@code quota} (multi-copy experts only). Returns -1
     * when every token found a copy, else the expert that did not fit, or {@code experts + g} when GPU g's forced load
     * alone exceeds its limit.
     */
    int fill(long t, long[] cap) {
        // Locals, not fields, in the hot loops: the JIT keeps them in registers.
        final LayerPlacement p = this.p;
        final long[] base = this.base;
        final long[] load = this.load;
        final long[] quota = this.quota;
        final long[] total = this.total;
        final long[] near = this.near;
        final long[] nearRack = this.nearRack;
        final int[] order = this.order;
        final boolean[] done = this.done;
        final int[] gpuStart = this.gpuStart;
        final int[] gpuCopy = this.gpuCopy;
        final int[] copyExpert = this.copyExpert;
        final int multi = this.multi;
        int ep = this.ep;
        for (int g = 0; g < ep; g++) {
            if (base[g] > limit(t, cap, g)) {
                return p.experts() + g;
            }
        }
        System.arraycopy(base, 0, load, 0, ep);
        // Only multi-copy experts' quotas and done flags are read (pass C looks at copies of multi-copy experts only).
        for (int i = 0; i < multi; i++) {
            done[order[i]] = false;
        }
        for (int i = 0; i < multi; i++) {
            int e = order[i];
            long rem = total[e];
            int start = p.copyStart(e);
            int end = start + p.copies(e);
            Arrays.fill(quota, start, end, 0);
            // Pass A: each copy first takes its near demand, within its slack.
            for (int c = start; c < end && rem > 0; c++) {
                int g = p.copyGpu(c);
                long a = Math.min(Math.min(near[c], Math.max(0, limit(t, cap, g) - load[g])), rem);
                load[g] += a;
                rem -= a;
                quota[c] = a;
            }
            // Pass A2: then its rack's share, within its slack.
            for (int c = start; c < end && rem > 0; c++) {
                int g = p.copyGpu(c);
                long a = Math.min(Math.min(Math.max(0, nearRack[c] - quota[c]), Math.max(0, limit(t, cap, g) - load[g])), rem);
                load[g] += a;
                rem -= a;
                quota[c] += a;
            }
            // Pass B: the rest goes to copies in ascending GPU order, each up to its slack.
            for (int c = start; c < end && rem > 0; c++) {
                int g = p.copyGpu(c);
                long a = Math.min(rem, Math.max(0, limit(t, cap, g) - load[g]));
                load[g] += a;
                rem -= a;
                quota[c] += a;
            }
            // Pass C: make room on a full copy's GPU by shifting an earlier expert's tokens to another of its copies.
            for (int c = start; c < end && rem > 0; c++) {
                int x = p.copyGpu(c);
                for (int j = gpuStart[x]; j < gpuStart[x + 1] && rem > 0; j++) {
                    int c1 = gpuCopy[j];
                    int e1 = copyExpert[c1];
                    if (!done[e1] || quota[c1] == 0) {
                        continue;
                    }
                    int s1 = p.copyStart(e1);
                    for (int c2 = s1; c2 < s1 + p.copies(e1) && rem > 0 && quota[c1] > 0; c2++) {
                        int y = p.copyGpu(c2);
                        long slack = limit(t, cap, y) - load[y];
                        if (y == x || slack <= 0) {
                            continue;
                        }
                        long m = Math.min(Math.min(quota[c1], slack), rem);
                        quota[c1] -= m;
                        quota[c2] += m;
                        load[y] += m;
                        quota[c] += m;
                        rem -= m;
                    }
                }
            }
            if (rem > 0) {
                return e;
            }
            done[e] = true;
        }
        return -1;
    }

    private static long limit(long t, long[] cap, int g) {
        return cap == null ? t : Math.min(t, cap[g]);
    }

    /** The busiest GPU's load after the latest fill. */
    long maxLoad() {
        long max = 0;
        for (int g = 0; g < ep; g++) {
            max = Math.max(max, load[g]);
        }
        return max;
    }
}
