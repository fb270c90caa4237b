package dev.ballast.planner.quota;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;


/**
 * Steps 6-9 of the quota rule (docs/quota-rule.md) on a {@link PreparedPlacement}: the greedy fill at a threshold and
 * the search for the threshold. After {@link #prepare} and {@link #search}, {@link #load} and {@link #quota} hold step
 * 9's loads and quotas. Its buffers are kept between calls (it allocates nothing once warm); not thread-safe.
 */
final class ThresholdSearch {
    /**
     * Step 8 stops bisecting once the threshold is known to within 1/1024 of its lower bound (the mean load): a GPU
     * may then carry up to 0.1% more than the smallest feasible threshold, and the search takes about five fills
     * fewer (docs/quota-rule.md).
     */
    private static final long SEARCH_TOLERANCE = 1024;

    /** Steps 1-5 of the placement searched. */
    final PreparedPlacement in = new PreparedPlacement();
    /** Per GPU and per copy: the latest fill's loads and quotas. */
    long[] load = new long[0];
    long[] quota = new long[0];
    long threshold;
    private boolean[] done = new boolean[0];
    /**
     * The latest feasible fill of the search, at threshold {@code keptAt} (-1: none), so that step 9 need not run the
     * fill again at the threshold the search has already filled (and a probe's fill can be undone by a copy).
     */
    private long[] keptLoad = new long[0];
    private long[] keptQuota = new long[0];
    private long keptAt = -1;
    /**
     * Step 8 between {@link #begin} and the end of {@link #advance}: the capacities in force, the infeasible side
     * {@code lo} and feasible side {@code hi} (every load of a fill at a feasible threshold is at most it), where the
     * gallop is ({@code probe}, {@code step}; {@code galloping} false once it has ended), and whether the threshold is
     * found (step 9 done).
     */
    private long[] cap8;
    private boolean exceeded;
    private long lo8;
    private long hi8;
    private long probe8;
    private long step8;
    private boolean galloping;
    private boolean found;

    /**
     * Steps 1-5 for {@code p} on {@code counts}; {@code totals} and {@code nodeSums} as {@link PreparedPlacement#prepare}
     * takes them.
     */
    void prepare(GroupTopology gt, LayerPlacement p, long[] counts, long[] totals, long[] nodeSums) {
        in.prepare(gt, p, counts, totals, nodeSums);
        if (load.length < in.ep) {
            load = new long[in.ep];
            keptLoad = new long[in.ep];
        }
        if (done.length < p.experts()) {
            done = new boolean[p.experts()];
        }
        if (quota.length < p.totalCopies()) {
            quota = new long[p.totalCopies()];
            keptQuota = new long[p.totalCopies()];
        }
        keptAt = -1;
    }

    /**
     * Steps 7-9 on the prepared placement: capacities (may be null), search, the final fill. Leaves {@code load} and
     * {@code quota} (single-copy experts included) as step 9 defines them; returns whether capacities were dropped.
     */
    boolean search(long[] capacity) {
        begin(capacity);
        advance(-1);
        return exceeded;
    }

    /** Step 7 on the prepared placement, and step 8 set to start; {@link #advance} runs it. */
    void begin(long[] capacity) {
        // Step 7: capacities apply only if the rule can meet them at all.
        long[] cap = capacity;
        exceeded = false;
        if (cap != null && fillKept(in.hi, cap) >= 0) {
            cap = null;
            exceeded = true;
        }
        cap8 = cap;
        lo8 = in.lo;
        hi8 = in.hi;
        step8 = Math.max(1, in.lo / 256);
        probe8 = in.lo;
        galloping = true;
        found = false;
    }

    /**
     * Steps 8 and 9 from where the last call left them, until the threshold is found (true: step 9's loads and quotas
     * are in {@link #load} and {@link #quota}) or the feasible side {@link #feasibleSide} is at most {@code stopAt}
     * (false; a later call goes on exactly where this one stopped, so the threshold found is the same).
     */
    boolean advance(long stopAt) {
        if (found) {
            return true;
        }
        long[] cap = cap8;
        long lo = lo8;
        long hi = hi8;
        // Step 8: gallop up from lo in steps of max(1, lo/256), doubling, to the first feasible probe (hi is always
        // feasible), then bisect until the feasible hi is within lo/1024 of the infeasible side.
        long step = step8;
        long probe = probe8;
        while (galloping && probe < hi) {
            if (hi <= stopAt) {
                stop(lo, hi, probe, step);
                return false;
            }
            if (fillKept(probe, cap) < 0) {
                hi = probe;
                break;
            }
            lo = probe + 1;
            probe = Math.min(hi, probe + step);
            step *= 2;
        }
        galloping = false;
        long tolerance = in.lo / SEARCH_TOLERANCE;
        while (hi - lo > tolerance) {
            if (hi <= stopAt) {
                stop(lo, hi, probe, step);
                return false;
            }
            long mid = lo + (hi - lo) / 2;
            if (fillKept(mid, cap) < 0) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        found = true;
        hi8 = hi;
        threshold = hi;
        // hi is feasible; its fill is kept unless no probe reached it (the gallop stops short of the initial hi).
        if (keptAt != hi) {
            fillKept(hi, cap);
        }
        LayerPlacement p = in.p;
        for (int e = 0; e < p.experts(); e++) {
            if (p.copies(e) == 1) {
                keptQuota[p.copyStart(e)] = in.total[e];
            }
        }
        fillAtThreshold();
        return true;
    }

    private void stop(long lo, long hi, long probe, long step) {
        lo8 = lo;
        hi8 = hi;
        probe8 = probe;
        step8 = step;
    }

    /** The lowest threshold step 8 has found feasible so far (the initial hi before any): at least step 9's loads. */
    long feasibleSide() {
        return hi8;
    }

    /** Step 9: the fill at the found threshold, single-copy experts' quotas included (a copy of the kept fill). */
    void fillAtThreshold() {
        System.arraycopy(keptLoad, 0, load, 0, in.ep);
        System.arraycopy(keptQuota, 0, quota, 0, in.p.totalCopies());
    }

    /** {@link #fill}, keeping the result when it is feasible (the buffers swap: nothing is copied). */
    private int fillKept(long t, long[] cap) {
        int r = fill(t, cap);
        if (r < 0) {
            long[] l = load;
            load = keptLoad;
            keptLoad = l;
            long[] q = quota;
            quota = keptQuota;
            keptQuota = q;
            keptAt = t;
        }
        return r;
    }

    /**
     * Step 6, the greedy fill at threshold T into {@code load} and {@code quota} (multi-copy experts only). Returns -1
     * when every token found a copy, else the expert that did not fit, or {@code experts + g} when GPU g's forced load
     * alone exceeds its limit.
     */
    int fill(long t, long[] cap) {
        // Locals, not fields, in the hot loops: the JIT keeps them in registers.
        final PreparedPlacement in = this.in;
        final LayerPlacement p = in.p;
        final long[] base = in.base;
        final long[] load = this.load;
        final long[] quota = this.quota;
        final long[] total = in.total;
        final long[] near = in.near;
        final long[] nearRack = in.nearRack;
        final int[] order = in.order;
        final boolean[] done = this.done;
        final int[] gpuStart = in.gpuStart;
        final int[] gpuCopy = in.gpuCopy;
        final int[] copyExpert = in.copyExpert;
        final int multi = in.multi;
        int ep = in.ep;
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
            // Pass A: each copy first takes its near demand, within its slack (and starts from zero once none is left).
            for (int c = start; c < end; c++) {
                long a = 0;
                if (rem > 0) {
                    int g = p.copyGpu(c);
                    a = Math.min(Math.min(near[c], Math.max(0, limit(t, cap, g) - load[g])), rem);
                    load[g] += a;
                    rem -= a;
                }
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
        for (int g = 0; g < in.ep; g++) {
            max = Math.max(max, load[g]);
        }
        return max;
    }
}
