package dev.ballast.planner.quota;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;

import java.util.Arrays;

/**
 * The per-step quota rule that every trainer runs (docs/quota-rule.md is the normative text; the Python client
 * implements the same steps, and both pass the shared vectors). From one step's exact all-gathered counts and the
 * current placement it computes, with integer arithmetic only, how many tokens each copy of each expert takes (unequal
 * shares allowed) and which source sends them, nearest copies first. Same inputs give the same output on every rank.
 * <p>
 * Steps 1-5 are {@link PreparedPlacement}, 6-9 {@link ThresholdSearch}, step 10 is here. Each thread reuses one set of scratch buffers; results never
 * share them. Planners that weigh many placements of one layer use {@link PlacementSearch}, the same steps without
 * storing the flows. A placement that carries a planned split ({@link LayerPlacement#withRoutes}) is routed by
 * {@link PlannedSplit} instead, unless that exceeds a capacity.
 */
public final class QuotaRule {
    private static final int LINK_CLASSES = 4;
    private static final ThreadLocal<QuotaRule> PER_THREAD = ThreadLocal.withInitial(QuotaRule::new);

    private final ThresholdSearch search = new ThresholdSearch();
    private final ExpertRouting routing = new ExpertRouting();
    private final Flows flows = new Flows();

    private QuotaRule() {
    }

    /**
     * @param counts   row-major [source EP rank][expert] token-assignment counts, length ep × experts, all >= 0
     * @param capacity per-GPU token capacity, or null for none
     */
    public static QuotaResult apply(GroupTopology gt, LayerPlacement p, long[] counts, long[] capacity) {
        if (capacity != null && capacity.length != gt.ep()) {
            throw new IllegalArgumentException("capacity length " + capacity.length + " != ep " + gt.ep());
        }
        if (p.hasRoutes()) {
            QuotaResult planned = PlannedSplit.apply(p, counts);
            if (capacity == null || withinCapacity(planned, capacity)) {
                return planned;
            }
        }
        return PER_THREAD.get().solve(gt, p, counts, capacity);
    }

    /** Whether no GPU computes more than its capacity (a planned split that does not is replaced by the rule). */
    private static boolean withinCapacity(QuotaResult r, long[] capacity) {
        for (int g = 0; g < capacity.length; g++) {
            if (r.gpuLoad(g) > capacity[g]) {
                return false;
            }
        }
        return true;
    }

    private QuotaResult solve(GroupTopology gt, LayerPlacement p, long[] counts, long[] capacity) {
        search.prepare(gt, p, counts, null, null);
        boolean exceeded = search.search(capacity);
        routing.size(gt.ep(), p.totalCopies(), gt.nodeCount(), gt.rackCount());
        int experts = p.experts();
        int most = 0;
        for (int e = 0; e < experts; e++) {
            if (p.copies(e) > 1) {
                most += gt.ep() + p.copies(e);
            }
        }
        Flows out = flows.reset(experts, most);
        for (int e = 0; e < experts; e++) {
            out.start[e] = out.n;
            if (p.copies(e) > 1) {
                routeExpert(gt, p, e, out);
            }
        }
        out.start[experts] = out.n;
        return new QuotaResult(p, counts, search.threshold, exceeded, Arrays.copyOf(search.load, gt.ep()),
                Arrays.copyOf(search.quota, p.totalCopies()), Arrays.copyOf(out.start, experts + 1),
                Arrays.copyOf(out.source, out.n), Arrays.copyOf(out.copy, out.n), Arrays.copyOf(out.tokens, out.n), true);
    }

    /**
     * Step 10's flows as a {@link QuotaResult} stores them (single-copy flows are implied by the counts), built in
     * buffers kept between calls and copied out at their final length: each flow empties a source or fills a copy, so
     * an expert of k copies has at most ep + k flows, and the buffers hold that many, but most take far fewer.
     */
    private static final class Flows {
        int[] start = new int[0];
        int[] source = new int[0];
        int[] copy = new int[0];
        long[] tokens = new long[0];
        int n;

        /** Empties the buffers, grown to hold {@code experts} experts and {@code capacity} flows. */
        Flows reset(int experts, int capacity) {
            if (start.length < experts + 1) {
                start = new int[experts + 1];
            }
            if (source.length < capacity) {
                source = new int[capacity];
                copy = new int[capacity];
                tokens = new long[capacity];
            }
            n = 0;
            return this;
        }

        void add(int s, int copy, long x) {
            this.source[n] = s;
            this.copy[n] = copy;
            this.tokens[n++] = x;
        }
    }

    /**
     * Splits the quotas of multi-copy expert e among its sources: link class by link class (same GPU, NVLink, network,
     * cross-rack), sources ascending, copies ascending (docs/quota-rule.md step 10), without materializing the
     * (source, copy) pairs. Each flow is stored in {@code out}.
     */
    private void routeExpert(GroupTopology gt, LayerPlacement p, int e, Flows out) {
        ExpertRouting r = routing;
        int ep = gt.ep();
        int first = p.copyStart(e);
        int k = p.copies(e);
        long left = r.start(search, e);
        // Class 0: copies ascend by GPU, so this is source order.
        for (int j = 0; j < k; j++) {
            if (r.sameGpu[j] > 0) {
                out.add(r.gpuOfCopy[j], first + j, r.sameGpu[j]);
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
                r.groupCopiesWithRoom(gt, cls == 2, k);
                if (cls == 1) {
                    System.arraycopy(r.nodeStart, 0, r.nodeFill, 0, gt.nodeCount());
                } else {
                    System.arraycopy(r.rackStart, 0, r.rackFill, 0, gt.rackCount());
                }
            } else {
                for (int j = 0; j < k; j++) {
                    if (r.remaining[j] > 0) {
                        r.active[na++] = j;
                    }
                }
            }
            if (cls < 3 && gt.groupsAreRankRuns()) {
                left = routeByGroup(gt, cls == 2, left, first, out);
                continue;
            }
            int cursor = 0;
            for (int s = 0; s < ep && left > 0; s++) {
                long had = r.avail[s];
                if (had == 0) {
                    continue;
                }
                if (cls == 1) {
                    int x = gt.nodeIndex(s);
                    r.nodeFill[x] = drain(s, r.byNode, r.nodeFill[x], r.nodeStart[x + 1], first, out);
                } else if (cls == 2) {
                    int x = gt.rackIndex(s);
                    r.rackFill[x] = drain(s, r.byRack, r.rackFill[x], r.rackStart[x + 1], first, out);
                } else {
                    cursor = drain(s, r.active, cursor, na, first, out);
                }
                left -= had - r.avail[s];
            }
        }
    }

    /**
     * Class 1 (by node) or 2 ({@code rack}: by rack) of {@link #routeExpert} where every node and rack is a run of
     * consecutive ranks: visiting the groups in order and each group's sources in order is visiting the sources in
     * ascending order, so the flows and their order are the same, but only the groups with a copy with room are
     * visited. Returns the tokens left.
     */
    private long routeByGroup(GroupTopology gt, boolean rack, long left, int first, Flows out) {
        ExpertRouting r = routing;
        int groups = rack ? gt.rackCount() : gt.nodeCount();
        int[] start = rack ? r.rackStart : r.nodeStart;
        int[] list = rack ? r.byRack : r.byNode;
        for (int x = 0; x < groups && left > 0; x++) {
            int fill = start[x];
            int end = start[x + 1];
            int to = rack ? gt.rackMemberStart(x + 1) : gt.nodeMemberStart(x + 1);
            for (int s = rack ? gt.rackMemberStart(x) : gt.nodeMemberStart(x); s < to && fill < end; s++) {
                long had = r.avail[s];
                if (had > 0) {
                    fill = drain(s, list, fill, end, first, out);
                    left -= had - r.avail[s];
                }
            }
        }
        return left;
    }

    /**
     * Source s sends what it has left to the copies {@code list[from, to)} in order, each up to its room, and returns
     * the position of the first copy with room left. Every copy there has room (those before {@code from} are full) and
     * is of the class being routed: after class 0 no source with tokens left shares a GPU with a copy with room, after
     * class 1 no node, after class 2 no rack.
     */
    private int drain(int s, int[] list, int from, int to, int first, Flows out) {
        long[] remaining = routing.remaining;
        int i = from;
        long a = routing.avail[s];
        while (a > 0 && i < to) {
            int j = list[i];
            long x = Math.min(a, remaining[j]);
            a -= x;
            remaining[j] -= x;
            out.add(s, first + j, x);
            if (remaining[j] == 0) {
                i++;
            }
        }
        routing.avail[s] = a;
        return i;
    }
}
