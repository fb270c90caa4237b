package dev.ballast.planner.quota;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.LinkTokens;
import dev.ballast.planner.model.StaticLayout;

import java.util.Arrays;

/**
 * The per-step quota rule (docs/quota-rule.md is the normative text; the Python client implements the same steps).
 * From one step's exact all-gathered counts and the current placement it computes, with integer arithmetic only,
 * how many tokens each copy of each expert takes (unequal shares allowed) and which source sends them, nearest
 * copies first. Same inputs give the same output on every rank.
 * <p>
 * The static methods are the rule; they reuse one instance per thread. An instance is the same rule with its scratch
 * buffers kept between calls, for a planner that scores thousands of placements: it allocates nothing once warm.
 * Instances are not thread-safe.
 */
public final class QuotaRule {
    private static final int LINK_CLASSES = 4;
    /**
     * Step 8 stops bisecting once the threshold is known to within 1/1024 of its lower bound (the mean load): a GPU
     * may then carry up to 0.1% more than the smallest feasible threshold, and the search takes about five fills
     * fewer (docs/quota-rule.md).
     */
    static final long SEARCH_TOLERANCE = 1024;
    /** The static methods' instance: its buffers are reused by every call on the thread (results never share them). */
    private static final ThreadLocal<QuotaRule> PER_THREAD = ThreadLocal.withInitial(QuotaRule::new);

    // Steps 1-5 of the latest call (see prepare).
    private long[] total;
    private long all;
    private long[] base = new long[0];
    private int multi;
    private int[] order = new int[0];
    private int[] slot = new int[0];
    private long[] col = new long[0];
    private long[] near = new long[0];
    private long[] nearRack = new long[0];
    private long lo;
    private long hi;
    // Steps 6-9: the fill's loads and quotas, and its lookup tables.
    private long[] load = new long[0];
    private long[] quota = new long[0];
    private boolean[] done = new boolean[0];
    private int[] copyExpert = new int[0];
    private int[] gpuStart = new int[0];
    private int[] gpuCopy = new int[0];
    private int[] gpuFill = new int[0];
    private long threshold;
    // The inputs of the latest planner-side preparation (probe, routeTokens), by identity, and whether load and quota
    // still hold its step 9 fill: a planner that probes a placement and then routes it skips steps 1-8 the second time.
    private GroupTopology preparedGt;
    private LayerPlacement preparedFor;
    private long[] preparedCounts;
    private long[] preparedTotals;
    private boolean atThreshold;
    // Scratch of prepare and route.
    private long[] totalBuf = new long[0];
    private long[] keys = new long[0];
    private long[] reach = new long[0];
    private long[] nodeSums = new long[0];
    private long[] rackSums = new long[0];
    private int[] groupCopies = new int[0];
    private int[] groupRank = new int[0];
    private long[] avail = new long[0];
    private long[] remaining = new long[0];
    private long[] sameGpu = new long[0];
    private int[] gpuOfCopy = new int[0];
    private int[] active = new int[0];
    private int[] byNode = new int[0];
    private int[] byRack = new int[0];
    private int[] nodeStart = new int[0];
    private int[] rackStart = new int[0];
    private int[] nodeFill = new int[0];
    private int[] rackFill = new int[0];

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
        return PER_THREAD.get().solve(gt, p, counts, capacity, totals);
    }

    /**
     * What a planner needs to top a placement up for balance, from one preparation: the per-GPU loads of step 9 (as
     * {@link QuotaResult#gpuLoad}, without step 10's routing) and the expert the rule's fill (step 6, no capacities) cannot place at {@code aim}: -1 when the
     * fill succeeds there, {@code experts + g} when GPU g's single-copy experts alone exceed it. It does not change the
     * rule.
     */
    public record Probe(long[] gpuLoad, long maxLoad, int unplacedAtAim) {
    }

    /** The whole rule, steps 1-10 (see {@link #apply(GroupTopology, LayerPlacement, long[], long[], long[])}). */
    public QuotaResult solve(GroupTopology gt, LayerPlacement p, long[] counts, long[] capacity, long[] totals) {
        if (capacity != null && capacity.length != gt.ep()) {
            throw new IllegalArgumentException("capacity length " + capacity.length + " != ep " + gt.ep());
        }
        preparedFor = null;
        prepare(gt, p, counts, totals);
        boolean exceeded = search(gt.ep(), p, capacity);
        return route(gt, p, counts, exceeded);
    }

    /**
     * The {@link Probe} of {@code p} at {@code aim}. Like {@link #routeTokens}, it skips steps 1-8 after a probe or
     * routing of the same placement, counts and totals (the same arrays, unchanged meanwhile).
     */
    public Probe probe(GroupTopology gt, LayerPlacement p, long[] counts, long[] totals, long aim) {
        int ep = gt.ep();
        prepareAndSearch(gt, p, counts, totals);
        long[] gpuLoad = Arrays.copyOf(load, ep);
        long max = 0;
        for (long x : gpuLoad) {
            max = Math.max(max, x);
        }
        if (max > aim) {
            atThreshold = false;
            return new Probe(gpuLoad, max, fill(aim, null, p));
        }
        return new Probe(gpuLoad, max, -1);
    }

    /**
     * Step 9's busiest GPU load without routing (as {@link #routeTokens} returns it), prepared so that a following
     * {@link #probe} or {@link #routeTokens} of the same placement, counts and totals skips steps 1-8.
     */
    public long maxLoad(GroupTopology gt, LayerPlacement p, long[] counts, long[] totals) {
        prepareAndSearch(gt, p, counts, totals);
        long max = 0;
        for (int g = 0; g < gt.ep(); g++) {
            max = Math.max(max, load[g]);
        }
        return max;
    }

    /** Steps 1-9 without capacities, skipped when the latest preparation was for the same inputs. */
    private void prepareAndSearch(GroupTopology gt, LayerPlacement p, long[] counts, long[] totals) {
        if (p == preparedFor && gt == preparedGt && counts == preparedCounts && totals == preparedTotals && totals != null) {
            if (!atThreshold) {
                fillAtThreshold(null, p);
                atThreshold = true;
            }
            return;
        }
        prepare(gt, p, counts, totals);
        search(gt.ep(), p, null);
        preparedGt = gt;
        preparedFor = p;
        preparedCounts = counts;
        preparedTotals = totals;
        atThreshold = true;
    }

    /**
     * Steps 1-9, then step 10's flows summed per (GPU, link class) instead of stored, for scoring a placement:
     * {@code sendTok[s * 4 + class]} and {@code recvTok[g * 4 + class]} arrive holding the sums of the all-at-home
     * routing (every expert's tokens sent to its static home); each expert routed otherwise has its home contribution
     * taken out and its real flows added. Returns the busiest GPU's load; the same sums as visiting
     * {@link #apply}'s flows. Steps 1-8 are skipped after a {@link #probe} of the same placement, counts and totals
     * (the same arrays, unchanged meanwhile).
     */
    public long routeTokens(GroupTopology gt, LayerPlacement p, long[] counts, long[] totals, long[] sendTok, long[] recvTok) {
        int ep = gt.ep();
        int experts = p.experts();
        long max = maxLoad(gt, p, counts, totals);
        for (int e = 0; e < experts; e++) {
            int h = StaticLayout.home(e, ep, experts);
            int k = p.copies(e);
            int first = p.copyStart(e);
            if (k == 1 && p.copyGpu(first) == h) {
                continue;
            }
            LinkTokens.addColumn(gt, counts, experts, e, h, -1, sendTok, recvTok);
            if (k == 1) {
                LinkTokens.addColumn(gt, counts, experts, e, p.copyGpu(first), 1, sendTok, recvTok);
            } else {
                sumExpertFlows(gt, p, e, sendTok, recvTok);
            }
        }
        return max;
    }

    /** Steps 1-5: totals, forced loads, order, near demands and search bounds, into this instance's fields. */
    private void prepare(GroupTopology gt, LayerPlacement p, long[] counts, long[] totals) {
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
        size(ep, experts, p.totalCopies(), gt.nodeCount(), gt.rackCount());
        // Step 1: expert totals.
        if (totals == null) {
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
            total = sums;
            if (signs < 0) {
                for (int i = 0; i < counts.length; i++) {
                    if (counts[i] < 0) {
                        throw new IllegalArgumentException("negative count at source " + i / experts + " expert " + i % experts);
                    }
                }
            }
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
        sortByLoadDescending(p, experts);
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
        // Step 4: each copy's near demand: its node's tokens for the expert, split among the expert's copies on that
        // node; and the same split at rack level. Step 5's reach on the way.
        System.arraycopy(base, 0, reach, 0, ep);
        for (int i = 0; i < multi; i++) {
            int e = order[i];
            int start = p.copyStart(e);
            int k = p.copies(e);
            splitNear(gt, i * ep, p, start, k);
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
        lo = Math.max(ceilDiv(all, ep), maxBase);
        hi = Math.max(maxReach, lo);
        buildCopyTables(p, ep, experts);
    }

    /** Grows the buffers to fit a group of {@code ep} GPUs, {@code experts} experts and {@code copies} copies. */
    private void size(int ep, int experts, int copies, int nodes, int racks) {
        if (base.length < ep) {
            base = new long[ep];
            reach = new long[ep];
            load = new long[ep];
            avail = new long[ep];
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
            remaining = new long[copies];
            sameGpu = new long[copies];
            gpuOfCopy = new int[copies];
            active = new int[copies];
            byNode = new int[copies];
            byRack = new int[copies];
        }
        int groups = Math.max(nodes, racks);
        if (nodeSums.length < groups) {
            nodeSums = new long[groups];
            rackSums = new long[groups];
            groupCopies = new int[groups];
            groupRank = new int[groups];
        }
        if (nodeStart.length < nodes + 1) {
            nodeStart = new int[nodes + 1];
            nodeFill = new int[nodes];
        }
        if (rackStart.length < racks + 1) {
            rackStart = new int[racks + 1];
            rackFill = new int[racks];
        }
    }

    /** Each copy's expert, and the multi-copy copies on each GPU (ascending copy index), for pass C. */
    private void buildCopyTables(LayerPlacement p, int ep, int experts) {
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

    /**
     * Steps 7-9 on the prepared fields: capacities, search, the final fill. Leaves {@code load} and {@code quota}
     * (single-copy experts included) as step 9 defines them; returns whether capacities were dropped.
     */
    private boolean search(int ep, LayerPlacement p, long[] capacity) {
        long lo = this.lo;
        long hi = this.hi;
        // Step 7: capacities apply only if the rule can meet them at all.
        long[] cap = capacity;
        boolean exceeded = false;
        if (cap != null && fill(hi, cap, p) >= 0) {
            cap = null;
            exceeded = true;
        }
        // Step 8: gallop up from lo in steps of max(1, lo/256), doubling, to the first feasible probe (hi is always
        // feasible), then bisect until the feasible hi is within lo/1024 of the infeasible side.
        long step = Math.max(1, lo / 256);
        long probe = lo;
        while (probe < hi) {
            if (fill(probe, cap, p) < 0) {
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
            if (fill(mid, cap, p) < 0) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        threshold = hi;
        fillAtThreshold(cap, p);
        return exceeded;
    }

    /** Step 9: the fill at the found threshold, single-copy experts' quotas included. */
    private void fillAtThreshold(long[] cap, LayerPlacement p) {
        fill(threshold, cap, p);
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
    private int fill(long t, long[] cap, LayerPlacement p) {
        // Locals, not fields, in the hot loops: the JIT keeps them in registers.
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
        int ep = p.gpus();
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

    /** Step 10 into a result: every multi-copy expert's flows stored (single-copy flows are implied by the counts). */
    private QuotaResult route(GroupTopology gt, LayerPlacement p, long[] counts, boolean exceeded) {
        int ep = gt.ep();
        int experts = p.experts();
        int capacity = 0;
        for (int e = 0; e < experts; e++) {
            if (p.copies(e) > 1) {
                capacity += ep + p.copies(e);
            }
        }
        Flows out = new Flows(experts, capacity);
        for (int e = 0; e < experts; e++) {
            out.start[e] = out.n;
            if (p.copies(e) > 1) {
                routeExpert(gt, p, e, out);
            }
        }
        out.start[experts] = out.n;
        return new QuotaResult(p, counts, threshold, exceeded, Arrays.copyOf(load, ep),
                Arrays.copyOf(quota, p.totalCopies()), out.start, out.source, out.copy, out.tokens);
    }

    /** Step 10's flows as stored in a {@link QuotaResult}. */
    private static final class Flows {
        final int[] start;
        final int[] source;
        final int[] copy;
        final long[] tokens;
        int n;

        Flows(int experts, int capacity) {
            start = new int[experts + 1];
            source = new int[capacity];
            copy = new int[capacity];
            tokens = new long[capacity];
        }
    }

    /**
     * Step 10's start for multi-copy expert e: its copies' quotas into remaining, their GPUs into gpuOfCopy, its column
     * into avail, then class 0 (same GPU: source s meets only the copy on GPU s), each copy's take into sameGpu and
     * out of remaining and avail. Returns the tokens left to route.
     */
    private long startExpert(LayerPlacement p, int e, int ep) {
        int first = p.copyStart(e);
        int k = p.copies(e);
        long left = 0;
        for (int j = 0; j < k; j++) {
            remaining[j] = quota[first + j];
            gpuOfCopy[j] = p.copyGpu(first + j);
            left += remaining[j];
        }
        System.arraycopy(col, slot[e] * ep, avail, 0, ep);
        for (int j = 0; j < k; j++) {
            int s = gpuOfCopy[j];
            long x = Math.min(avail[s], remaining[j]);
            avail[s] -= x;
            remaining[j] -= x;
            left -= x;
            sameGpu[j] = x;
        }
        return left;
    }

    /**
     * Splits the quotas of multi-copy expert e among its sources: link class by link class (same GPU, NVLink, network,
     * cross-rack), sources ascending, copies ascending (docs/quota-rule.md step 10), without materializing the
     * (source, copy) pairs. Each flow is stored in {@code out}.
     */
    private void routeExpert(GroupTopology gt, LayerPlacement p, int e, Flows out) {
        int ep = gt.ep();
        int first = p.copyStart(e);
        int k = p.copies(e);
        long left = startExpert(p, e, ep);
        // Class 0: copies ascend by GPU, so this is source order.
        for (int j = 0; j < k; j++) {
            if (sameGpu[j] > 0) {
                emit(out, gpuOfCopy[j], first + j, sameGpu[j]);
            }
        }
        // Classes 1-3: sources ascending, then copies ascending, over the copies that still have room. Stops as soon
        // as every quota is met (then every source is drained too: both sum to the expert's total). Sources fill their
        // group's copies in list order, so each group keeps a cursor at its first copy with room left
        // (nodeFill/rackFill, and one for class 3).
        for (int cls = 1; cls < LINK_CLASSES && left > 0; cls++) {
            // The copies that still have room: a source meets class 1 only on its node, class 2 only in its rack.
            int na = 0;
            if (cls < 3) {
                groupCopiesWithRoom(gt, cls == 2, k);
                if (cls == 1) {
                    System.arraycopy(nodeStart, 0, nodeFill, 0, gt.nodeCount());
                } else {
                    System.arraycopy(rackStart, 0, rackFill, 0, gt.rackCount());
                }
            } else {
                for (int j = 0; j < k; j++) {
                    if (remaining[j] > 0) {
                        active[na++] = j;
                    }
                }
            }
            int cursor = 0;
            for (int s = 0; s < ep && left > 0; s++) {
                long had = avail[s];
                if (had == 0) {
                    continue;
                }
                if (cls == 1) {
                    int x = gt.nodeIndex(s);
                    nodeFill[x] = drain(s, byNode, nodeFill[x], nodeStart[x + 1], first, out);
                } else if (cls == 2) {
                    int x = gt.rackIndex(s);
                    rackFill[x] = drain(s, byRack, rackFill[x], rackStart[x + 1], first, out);
                } else {
                    cursor = drain(s, active, cursor, na, first, out);
                }
                left -= had - avail[s];
            }
        }
    }

    /**
     * Source s sends what it has left to the copies {@code list[from, to)} in order, each up to its room, and returns
     * the position of the first copy with room left. Every copy there has room (those before {@code from} are full) and
     * is of the class being routed: after class 0 no source with tokens left shares a GPU with a copy with room, after
     * class 1 no node, after class 2 no rack.
     */
    private int drain(int s, int[] list, int from, int to, int first, Flows out) {
        int i = from;
        long a = avail[s];
        while (a > 0 && i < to) {
            int j = list[i];
            long x = Math.min(a, remaining[j]);
            a -= x;
            remaining[j] -= x;
            emit(out, s, first + j, x);
            if (remaining[j] == 0) {
                i++;
            }
        }
        avail[s] = a;
        return i;
    }

    /**
     * {@link #routeExpert}'s flows of multi-copy expert e summed per (GPU, link class): the same sums, visiting only the
     * sources that can still send. After class 0 no source with tokens left shares a GPU with a copy with room, after
     * class 1 no node, after class 2 no rack; so inside a node (class 1), a rack (class 2) or the group (class 3) every
     * such pair is of that class, and "sources ascending, copies ascending" drains each source into the first copies
     * with room. Nodes (racks) share no sources or copies, so visiting them one by one gives the same sums.
     */
    private void sumExpertFlows(GroupTopology gt, LayerPlacement p, int e, long[] sendTok, long[] recvTok) {
        int ep = gt.ep();
        int k = p.copies(e);
        long left = startExpert(p, e, ep);
        for (int j = 0; j < k; j++) {
            sendTok[gpuOfCopy[j] * 4] += sameGpu[j];
            recvTok[gpuOfCopy[j] * 4] += sameGpu[j];
        }
        if (left > 0) {
            left = sumGroupFlows(gt, false, k, left, sendTok, recvTok);
        }
        if (left > 0) {
            left = sumGroupFlows(gt, true, k, left, sendTok, recvTok);
        }
        // Class 3 is the last: every source sends all it has left and every copy takes all its room (both sum to left).
        if (left > 0) {
            for (int s = 0; s < ep; s++) {
                sendTok[s * 4 + 3] += avail[s];
            }
            for (int j = 0; j < k; j++) {
                recvTok[gpuOfCopy[j] * 4 + 3] += remaining[j];
            }
        }
    }

    /** Class 1 (by node) or class 2 ({@code rack}: by rack) of {@link #sumExpertFlows}; returns the tokens left. */
    private long sumGroupFlows(GroupTopology gt, boolean rack, int k, long left, long[] sendTok, long[] recvTok) {
        int groups = rack ? gt.rackCount() : gt.nodeCount();
        int[] start = rack ? rackStart : nodeStart;
        int[] list = rack ? byRack : byNode;
        int cls = rack ? 2 : 1;
        groupCopiesWithRoom(gt, rack, k);
        for (int x = 0; x < groups && left > 0; x++) {
            int c = start[x];
            int end = start[x + 1];
            int to = rack ? gt.rackMemberStart(x + 1) : gt.nodeMemberStart(x + 1);
            for (int i = rack ? gt.rackMemberStart(x) : gt.nodeMemberStart(x); i < to && c < end; i++) {
                int s = rack ? gt.rackMember(i) : gt.nodeMember(i);
                long a = avail[s];
                while (a > 0 && c < end) {
                    int j = list[c];
                    long y = Math.min(a, remaining[j]);
                    a -= y;
                    remaining[j] -= y;
                    left -= y;
                    sendTok[s * 4 + cls] += y;
                    recvTok[gpuOfCopy[j] * 4 + cls] += y;
                    if (remaining[j] == 0) {
                        c++;
                    }
                }
                avail[s] = a;
            }
        }
        return left;
    }

    /**
     * The copies with room left, grouped by node (by rack with {@code rack}), ascending within a group: group x's are
     * {@code byNode} ({@code byRack}) from {@code nodeStart[x]} ({@code rackStart[x]}) to the next group's start.
     */
    private void groupCopiesWithRoom(GroupTopology gt, boolean rack, int k) {
        int groups = rack ? gt.rackCount() : gt.nodeCount();
        int[] start = rack ? rackStart : nodeStart;
        int[] fill = rack ? rackFill : nodeFill;
        int[] list = rack ? byRack : byNode;
        Arrays.fill(start, 0, groups + 1, 0);
        for (int j = 0; j < k; j++) {
            if (remaining[j] > 0) {
                start[(rack ? gt.rackIndex(gpuOfCopy[j]) : gt.nodeIndex(gpuOfCopy[j])) + 1]++;
            }
        }
        for (int x = 0; x < groups; x++) {
            start[x + 1] += start[x];
        }
        System.arraycopy(start, 0, fill, 0, groups);
        for (int j = 0; j < k; j++) {
            if (remaining[j] > 0) {
                list[fill[rack ? gt.rackIndex(gpuOfCopy[j]) : gt.nodeIndex(gpuOfCopy[j])]++] = j;
            }
        }
    }

    private static void emit(Flows out, int s, int copy, long x) {
        out.source[out.n] = s;
        out.copy[out.n] = copy;
        out.tokens[out.n++] = x;
    }

    static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    /**
     * Splits one expert's tokens (its column in {@code col} from {@code colBase}) among its copies {@code start ..
     * start + k}, by node into {@code near} and by rack into {@code nearRack}: each copy gets its group's tokens divided
     * by the group's copies, the remainder one token each to the group's first copies. A rack's tokens are the sum of
     * its nodes'. Leaves the group scratch arrays zeroed.
     */
    private void splitNear(GroupTopology gt, int colBase, LayerPlacement p, int start, int k) {
        int ep = gt.ep();
        int nodes = gt.nodeCount();
        int racks = gt.rackCount();
        long[] nodeSum = nodeSums;
        long[] rackSum = rackSums;
        for (int s = 0; s < ep; s++) {
            nodeSum[gt.nodeIndex(s)] += col[colBase + s];
        }
        for (int n = 0; n < nodes; n++) {
            rackSum[gt.rackOfNode(n)] += nodeSum[n];
        }
        split(gt, false, nodeSum, p, start, k, near);
        split(gt, true, rackSum, p, start, k, nearRack);
        Arrays.fill(nodeSum, 0, nodes, 0);
        Arrays.fill(rackSum, 0, racks, 0);
    }

    /** {@link #splitNear}'s division of the group sums {@code sum} (by node, or by rack with {@code byRack}). */
    private void split(GroupTopology gt, boolean byRack, long[] sum, LayerPlacement p, int start, int k, long[] out) {
        int[] copies = groupCopies;
        int[] rank = groupRank;
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
        int groups = byRack ? gt.rackCount() : gt.nodeCount();
        Arrays.fill(copies, 0, groups, 0);
        Arrays.fill(rank, 0, groups, 0);
    }

    /** Fills {@code order[0, multi)} with the multi-copy experts, load descending, then index ascending. */
    private void sortByLoadDescending(LayerPlacement p, int experts) {
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
}
