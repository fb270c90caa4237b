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
        return apply(gt, p, counts, capacity, null);
    }

    /**
     * As {@link #apply(GroupTopology, LayerPlacement, long[], long[])} with the per-expert totals already summed by the
     * caller (a planner scoring several placements of one layer); {@code totals} null means compute them.
     */
    public static QuotaResult apply(GroupTopology gt, LayerPlacement p, long[] counts, long[] capacity, long[] totals) {
        if (capacity != null && capacity.length != gt.ep()) {
            throw new IllegalArgumentException("capacity length " + capacity.length + " != ep " + gt.ep());
        }
        Prep pr = prepare(gt, p, counts, totals);
        return search(gt, p, counts, capacity, pr, true).result();
    }

    /**
     * Step 9's per-GPU loads ({@code gpuLoad}) without the routing of step 10: equal to
     * {@code apply(gt, p, counts, null, totals).gpuLoad(g)} for every g, for planners that only need the balance.
     */
    public static long[] loads(GroupTopology gt, LayerPlacement p, long[] counts, long[] totals) {
        Prep pr = prepare(gt, p, counts, totals);
        return search(gt, p, counts, null, pr, false).gpuLoad();
    }

    /**
     * What a planner needs to top a placement up for balance, from one preparation: the per-GPU loads of step 9 (as
     * {@link #loads}) and the expert the rule's fill (step 6, no capacities) cannot place at {@code aim}: -1 when the
     * fill succeeds there, {@code experts + g} when GPU g's single-copy experts alone exceed it. It does not change the
     * rule.
     */
    public record Probe(long[] gpuLoad, long maxLoad, int unplacedAtAim) {
    }

    public static Probe probe(GroupTopology gt, LayerPlacement p, long[] counts, long[] totals, long aim) {
        Prep pr = prepare(gt, p, counts, totals);
        long[] load = search(gt, p, counts, null, pr, false).gpuLoad();
        long max = 0;
        for (long x : load) {
            max = Math.max(max, x);
        }
        int unplaced = -1;
        if (max > aim) {
            unplaced = fill(aim, null, pr.base, pr.order, pr.total, pr.near, pr.nearRack, p, new long[gt.ep()],
                    new long[p.totalCopies()], new Scratch(p, gt.ep()));
        }
        return new Probe(load, max, unplaced);
    }

    /** Steps 1-5: totals, forced loads, order, near demands and search bounds. */
    private record Prep(long[] total, long[] base, int[] order, int[] slot, long[] col, long[] near, long[] nearRack,
                        long lo, long hi) {
    }

    private static Prep prepare(GroupTopology gt, LayerPlacement p, long[] counts, long[] totals) {
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
        // Step 1: expert totals.
        long[] total = totals;
        if (total == null) {
            total = new long[experts];
            long signs = 0;
            for (int s = 0; s < ep; s++) {
                int row = s * experts;
                // Branch-free so the JIT can vectorize; a negative count sets the sign bit of {@code signs}.
                for (int e = 0; e < experts; e++) {
                    long c = counts[row + e];
                    signs |= c;
                    total[e] += c;
                }
            }
            if (signs < 0) {
                for (int i = 0; i < counts.length; i++) {
                    if (counts[i] < 0) {
                        throw new IllegalArgumentException("negative count at source " + i / experts + " expert " + i % experts);
                    }
                }
            }
        } else if (total.length != experts) {
            throw new IllegalArgumentException("totals length " + total.length + " != experts " + experts);
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
        // The multi-copy experts' columns, gathered in one pass over the rows (column reads are cache-hostile).
        int[] slot = new int[experts];
        Arrays.fill(slot, -1);
        for (int i = 0; i < order.length; i++) {
            slot[order[i]] = i;
        }
        long[] col = new long[order.length * ep];
        for (int s = 0; s < ep; s++) {
            int row = s * experts;
            for (int i = 0; i < order.length; i++) {
                col[i * ep + s] = counts[row + order[i]];
            }
        }
        // Step 4: each copy's near demand: its node's tokens for the expert, split among the expert's copies on that node.
        long[] near = new long[p.totalCopies()];
        long[] nodeSum = new long[gt.nodeCount()];
        int[] nodeCopies = new int[gt.nodeCount()];
        long hi = 0;
        long[] reach = base.clone();
        int[] rank = new int[gt.nodeCount()];
        long[] nearRack = new long[p.totalCopies()];
        long[] rackSum = new long[gt.rackCount()];
        int[] rackCopies = new int[gt.rackCount()];
        int[] rackRank = new int[gt.rackCount()];
        for (int e : order) {
            int start = p.copyStart(e);
            int k = p.copies(e);
            splitNear(gt, false, col, slot[e] * ep, ep, p, start, k, nodeSum, nodeCopies, rank, near);
            for (int j = 0; j < k; j++) {
                reach[p.copyGpu(start + j)] += total[e];
            }
            // The same split at rack level.
            splitNear(gt, true, col, slot[e] * ep, ep, p, start, k, rackSum, rackCopies, rackRank, nearRack);
        }
        long maxBase = 0;
        for (int g = 0; g < ep; g++) {
            maxBase = Math.max(maxBase, base[g]);
            hi = Math.max(hi, reach[g]);
        }
        long lo = Math.max(ceilDiv(all, ep), maxBase);
        hi = Math.max(hi, lo);
        return new Prep(total, base, order, slot, col, near, nearRack, lo, hi);
    }

    /** Steps 6-9, then step 10 when {@code route}; without it the result carries loads and quotas but no flows. */
    private static Loads search(GroupTopology gt, LayerPlacement p, long[] counts, long[] capacity, Prep pr, boolean route) {
        int ep = gt.ep();
        int experts = p.experts();
        long[] base = pr.base();
        int[] order = pr.order();
        long[] total = pr.total();
        long[] near = pr.near();
        long[] nearRack = pr.nearRack();
        long lo = pr.lo();
        long hi = pr.hi();
        long[] copyQuota = new long[p.totalCopies()];
        // Step 5: capacities apply only if the rule can meet them at all.
        long[] load = new long[ep];
        long[] cap = capacity;
        boolean exceeded = false;
        Scratch sc = new Scratch(p, ep);
        if (cap != null && fill(hi, cap, base, order, total, near, nearRack, p, load, copyQuota, sc) >= 0) {
            cap = null;
            exceeded = true;
        }
        // Step 6: gallop up from lo in steps of max(1, lo/256), doubling, to the first feasible probe (hi is always
        // feasible), then binary search the smallest feasible threshold in between.
        long step = Math.max(1, lo / 256);
        long probe = lo;
        while (probe < hi) {
            if (fill(probe, cap, base, order, total, near, nearRack, p, load, copyQuota, sc) < 0) {
                hi = probe;
                break;
            }
            lo = probe + 1;
            probe = Math.min(hi, probe + step);
            step *= 2;
        }
        while (lo < hi) {
            long mid = lo + (hi - lo) / 2;
            if (fill(mid, cap, base, order, total, near, nearRack, p, load, copyQuota, sc) < 0) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        long threshold = lo;
        fill(threshold, cap, base, order, total, near, nearRack, p, load, copyQuota, sc);
        for (int e = 0; e < experts; e++) {
            if (p.copies(e) == 1) {
                copyQuota[p.copyStart(e)] = total[e];
            }
        }
        if (!route) {
            return new Loads(load, null);
        }
        return new Loads(load, route(gt, p, counts, pr.col(), pr.slot(), threshold, exceeded, load, copyQuota));
    }

    private record Loads(long[] gpuLoad, QuotaResult result) {
    }

    /**
     * Greedy fill at threshold T into {@code quota} (multi-copy experts only). Returns -1 when every token found a copy,
     * else the expert that did not fit, or {@code experts + g} when GPU g's forced load alone exceeds its limit.
     */
    private static int fill(long t, long[] cap, long[] base, int[] order, long[] total, long[] near, long[] nearRack,
                                LayerPlacement p, long[] load, long[] quota, Scratch sc) {
        int ep = base.length;
        for (int g = 0; g < ep; g++) {
            if (base[g] > limit(t, cap, g)) {
                return p.experts() + g;
            }
        }
        System.arraycopy(base, 0, load, 0, ep);
        java.util.Arrays.fill(quota, 0);
        java.util.Arrays.fill(sc.done, false);
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
                for (int i = sc.gpuStart[x]; i < sc.gpuStart[x + 1] && rem > 0; i++) {
                    int c1 = sc.gpuCopy[i];
                    int e1 = sc.copyExpert[c1];
                    if (!sc.done[e1] || quota[c1] == 0) {
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
            sc.done[e] = true;
        }
        return -1;
    }

    /** Per-call lookup tables: each multi-copy copy's expert, and the multi-copy copies on each GPU (ascending copy index). */
    private static final class Scratch {
        final boolean[] done;
        final int[] copyExpert;
        final int[] gpuStart;
        final int[] gpuCopy;

        Scratch(LayerPlacement p, int ep) {
            int experts = p.experts();
            done = new boolean[experts];
            copyExpert = new int[p.totalCopies()];
            gpuStart = new int[ep + 1];
            int n = 0;
            for (int e = 0; e < experts; e++) {
                for (int c = p.copyStart(e); c < p.copyStart(e) + p.copies(e); c++) {
                    copyExpert[c] = e;
                    if (p.copies(e) > 1) {
                        gpuStart[p.copyGpu(c) + 1]++;
                        n++;
                    }
                }
            }
            for (int g = 0; g < ep; g++) {
                gpuStart[g + 1] += gpuStart[g];
            }
            gpuCopy = new int[n];
            int[] fill = java.util.Arrays.copyOf(gpuStart, ep);
            for (int c = 0; c < copyExpert.length; c++) {
                if (p.copies(copyExpert[c]) > 1) {
                    gpuCopy[fill[p.copyGpu(c)]++] = c;
                }
            }
        }
    }

    private static long limit(long t, long[] cap, int g) {
        return cap == null ? t : Math.min(t, cap[g]);
    }

    /**
     * Splits each copy's quota among sources: link class by link class (same GPU, NVLink, network, cross-rack), sources
     * ascending, copies ascending (docs/quota-rule.md step 10), without materializing the (source, copy) pairs.
     */
    private static QuotaResult route(GroupTopology gt, LayerPlacement p, long[] counts, long[] col, int[] slot, long threshold,
                                     boolean exceeded, long[] load, long[] copyQuota) {
        int ep = gt.ep();
        int experts = p.experts();
        int[] start = new int[experts + 1];
        int capacity = 0;
        for (int e = 0; e < experts; e++) {
            if (p.copies(e) > 1) {
                capacity += ep + p.copies(e);
            }
        }
        int[] fs = new int[capacity];
        int[] fc = new int[capacity];
        long[] ft = new long[capacity];
        int n = 0;
        long[] avail = new long[ep];
        int maxK = 1;
        for (int e = 0; e < experts; e++) {
            maxK = Math.max(maxK, p.copies(e));
        }
        long[] remaining = new long[maxK];
        int[] gpuOfCopy = new int[maxK];
        int[] active = new int[maxK];
        int nc = gt.nodeCount();
        int rc = gt.rackCount();
        int[] nodeStart = new int[nc + 1];
        int[] rackStart = new int[rc + 1];
        int[] nodeFill = new int[nc];
        int[] rackFill = new int[rc];
        int[] byNode = new int[maxK];
        int[] byRack = new int[maxK];
        for (int e = 0; e < experts; e++) {
            start[e] = n;
            int first = p.copyStart(e);
            int k = p.copies(e);
            if (k == 1) {
                continue;
            }
            long left = 0;
            for (int j = 0; j < k; j++) {
                remaining[j] = copyQuota[first + j];
                gpuOfCopy[j] = p.copyGpu(first + j);
                left += remaining[j];
            }
            int row = slot[e] * ep;
            System.arraycopy(col, row, avail, 0, ep);
            // Class 0 (same GPU): source s meets only the copy on GPU s; copies ascend by GPU, so this is source order.
            for (int j = 0; j < k && left > 0; j++) {
                int s = gpuOfCopy[j];
                long x = Math.min(avail[s], remaining[j]);
                if (x > 0) {
                    avail[s] -= x;
                    remaining[j] -= x;
                    left -= x;
                    fs[n] = s;
                    fc[n] = first + j;
                    ft[n++] = x;
                }
            }
            // Classes 1-3: sources ascending, then copies ascending, over the copies that still have room. Stops as soon
            // as every quota is met (then every source is drained too: both sum to the expert's total).
            for (int cls = 1; cls < LINK_CLASSES && left > 0; cls++) {
                // The copies that still have room, grouped by node and by rack (ascending copy order within a group):
                // a source meets class 1 only on its node, class 2 only in its rack.
                int na = 0;
                java.util.Arrays.fill(nodeStart, 0);
                java.util.Arrays.fill(rackStart, 0);
                for (int j = 0; j < k; j++) {
                    if (remaining[j] > 0) {
                        active[na++] = j;
                        nodeStart[gt.nodeIndex(gpuOfCopy[j]) + 1]++;
                        rackStart[gt.rackIndex(gpuOfCopy[j]) + 1]++;
                    }
                }
                for (int x = 0; x < nc; x++) {
                    nodeStart[x + 1] += nodeStart[x];
                }
                for (int x = 0; x < rc; x++) {
                    rackStart[x + 1] += rackStart[x];
                }
                System.arraycopy(nodeStart, 0, nodeFill, 0, nc);
                System.arraycopy(rackStart, 0, rackFill, 0, rc);
                for (int i = 0; i < na; i++) {
                    int j = active[i];
                    byNode[nodeFill[gt.nodeIndex(gpuOfCopy[j])]++] = j;
                    byRack[rackFill[gt.rackIndex(gpuOfCopy[j])]++] = j;
                }
                for (int s = 0; s < ep && left > 0; s++) {
                    if (avail[s] == 0) {
                        continue;
                    }
                    int[] list;
                    int from;
                    int to;
                    if (cls == 1) {
                        list = byNode;
                        from = nodeStart[gt.nodeIndex(s)];
                        to = nodeStart[gt.nodeIndex(s) + 1];
                    } else if (cls == 2) {
                        list = byRack;
                        from = rackStart[gt.rackIndex(s)];
                        to = rackStart[gt.rackIndex(s) + 1];
                    } else {
                        list = active;
                        from = 0;
                        to = na;
                    }
                    int rowS = s * ep;
                    for (int i = from; i < to; i++) {
                        int j = list[i];
                        if (remaining[j] == 0 || gt.linkClassAt(rowS + gpuOfCopy[j]) != cls) {
                            continue;
                        }
                        long x = Math.min(avail[s], remaining[j]);
                        avail[s] -= x;
                        remaining[j] -= x;
                        left -= x;
                        fs[n] = s;
                        fc[n] = first + j;
                        ft[n++] = x;
                        if (avail[s] == 0) {
                            break;
                        }
                    }
                }
            }
        }
        start[experts] = n;
        return new QuotaResult(p, counts, threshold, exceeded, load.clone(), copyQuota, start, fs, fc, ft);
    }

    static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    /**
     * Splits one expert's tokens (its column, {@code ep} sources from {@code colBase}) among its copies by group (node,
     * or rack with {@code byRack}): each copy gets its group's tokens divided by the group's copies, the remainder one
     * token each to the group's first copies. Leaves the scratch arrays zeroed.
     */
    private static void splitNear(GroupTopology gt, boolean byRack, long[] col, int colBase, int ep, LayerPlacement p,
            int start, int k, long[] sum, int[] copies, int[] rank, long[] out) {
        for (int s = 0; s < ep; s++) {
            sum[byRack ? gt.rackIndex(s) : gt.nodeIndex(s)] += col[colBase + s];
        }
        for (int j = 0; j < k; j++) {
            int gpu = p.copyGpu(start + j);
            copies[byRack ? gt.rackIndex(gpu) : gt.nodeIndex(gpu)]++;
        }
        for (int j = 0; j < k; j++) {
            int gpu = p.copyGpu(start + j);
            int g = byRack ? gt.rackIndex(gpu) : gt.nodeIndex(gpu);
            long d = sum[g];
            int m = copies[g];
            out[start + j] = d / m + (rank[g] < d % m ? 1 : 0);
            rank[g]++;
        }
        Arrays.fill(sum, 0);
        Arrays.fill(copies, 0);
        Arrays.fill(rank, 0);
    }

    private static int[] sortByLoadDescending(long[] total, LayerPlacement p, int multi) {
        int experts = total.length;
        long[] keys = new long[multi];
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
        Arrays.sort(keys);
        int[] order = new int[multi];
        for (int i = 0; i < multi; i++) {
            order[i] = (1 << 14) - 1 - (int) (keys[multi - 1 - i] & ((1 << 14) - 1));
        }
        return order;
    }
}
