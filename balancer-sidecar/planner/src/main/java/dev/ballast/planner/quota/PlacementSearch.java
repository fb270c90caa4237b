package dev.ballast.planner.quota;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.LinkTokens;
import dev.ballast.planner.model.StaticLayout;

import java.util.Arrays;

/**
 * The quota rule as a planner weighs placements of one layer with it: steps 1-9 of {@link QuotaRule} (no
 * capacities), then the answers a planner needs from them (the busiest GPU's load, a {@link Probe}, or step 10's flows
 * summed per GPU and link class) without storing flows. The answers are the rule's own; nothing here changes it.
 * <p>
 * {@link #startLayer} binds the search to one layer's counts and their per-expert totals (the caller's, read in place:
 * they must not change until the next {@code startLayer}). Each question names its placement; the steps run again
 * only for a placement other than the one searched last in this layer (placements are immutable, so the same object
 * is the same placement). The buffers are kept from layer to layer; not thread-safe.
 */
public final class PlacementSearch {
    private final ThresholdSearch rule = new ThresholdSearch();
    private final ExpertRouting routing = new ExpertRouting();
    private GroupTopology gt;
    private long[] counts;
    private long[] totals;
    private long[] nodeSums;
    private long all;
    /** The placement the rule's state describes in this layer, null before the first search. */
    private LayerPlacement searched;
    /** Whether the rule's search has found the threshold for {@code searched} (else {@link #maxLoadAtMost} stopped it). */
    private boolean found;
    /** Whether the rule's loads and quotas are step 9's fill (a probe at its aim replaces them). */
    private boolean atThreshold;

    /**
     * What a planner needs to top a placement up for balance: the per-GPU loads of step 9 (as
     * {@link QuotaResult#gpuLoad}, without step 10's routing), the busiest of them, and the expert the rule's fill
     * (step 6, no capacities) cannot place at the aim: -1 when the fill succeeds there, {@code experts + g} when GPU
     * g's single-copy experts alone exceed it.
     */
    public record Probe(long[] gpuLoad, long maxLoad, int unplacedAtAim) {
    }

    /**
     * Binds the search to one layer of group {@code gt}: {@code counts} row-major [source][expert], {@code totals} their
     * per-expert sums (length experts). Forgets the placement searched before.
     */
    public void startLayer(GroupTopology gt, long[] counts, long[] totals) {
        startLayer(gt, counts, totals, null);
    }

    /**
     * As {@link #startLayer(GroupTopology, long[], long[])}, with the counts' sums per (node, expert) as well,
     * {@code nodeSums[node * experts + e]} by the group's dense node numbers (read in place; null: summed here): the
     * rule's near shares then come from them, and the counts are read only to route flows.
     */
    public void startLayer(GroupTopology gt, long[] counts, long[] totals, long[] nodeSums) {
        if (counts.length != gt.ep() * totals.length) {
            throw new IllegalArgumentException("counts length " + counts.length + " != ep × experts = " + gt.ep() * totals.length);
        }
        this.gt = gt;
        this.counts = counts;
        this.totals = totals;
        this.nodeSums = nodeSums;
        long sum = 0;
        for (long t : totals) {
            sum += t;
        }
        this.all = sum;
        this.searched = null;
    }

    /** The group of the current layer. */
    public GroupTopology group() {
        return gt;
    }

    /** All token assignments of the current layer (the sum of its totals). */
    public long allTokens() {
        return all;
    }

    /** Step 9's busiest GPU load of {@code p} (as {@link QuotaResult#gpuLoad}'s maximum). */
    public long maxLoad(LayerPlacement p) {
        searchAtThreshold(p);
        return rule.maxLoad();
    }

    /**
     * At least {@link #maxLoad}{@code (p)}: a feasible threshold of step 8 as soon as the search has found one at most
     * {@code enough} (it stops there, and the next question about {@code p} goes on from there), else the busiest load
     * itself. For a caller that only asks whether the busiest load is at most {@code enough}, and what follows from
     * that, in fewer fills than the whole search.
     */
    public long maxLoadAtMost(LayerPlacement p, long enough) {
        start(p);
        if (!found) {
            if (!rule.advance(enough)) {
                return rule.feasibleSide();
            }
            found = true;
            atThreshold = true;
        }
        return maxLoad(p);
    }

    /** Step 9's quota of each copy of {@code p} (by copy index, as {@link QuotaResult#copyQuota}), without routing. */
    public long[] copyQuotas(LayerPlacement p) {
        searchAtThreshold(p);
        return Arrays.copyOf(rule.quota, p.totalCopies());
    }

    /** The {@link Probe} of {@code p} at {@code aim}. */
    public Probe probe(LayerPlacement p, long aim) {
        searchAtThreshold(p);
        long[] gpuLoad = Arrays.copyOf(rule.load, gt.ep());
        long max = rule.maxLoad();
        if (max > aim) {
            atThreshold = false;
            return new Probe(gpuLoad, max, rule.fill(aim, null));
        }
        return new Probe(gpuLoad, max, -1);
    }

    /**
     * Step 10's flows of {@code p} summed per (GPU, link class) instead of stored, for scoring it:
     * {@code sendTok[s * 4 + class]} and {@code recvTok[g * 4 + class]} arrive holding the sums of the all-at-home
     * routing (every expert's tokens sent to its static home); each expert routed otherwise has its home contribution
     * taken out and its real flows added. The same sums as visiting {@link QuotaRule#apply}'s flows. Returns the
     * busiest GPU's load.
     */
    public long addFlows(LayerPlacement p, long[] sendTok, long[] recvTok) {
        long max = maxLoad(p);
        int ep = gt.ep();
        int experts = p.experts();
        routing.size(ep, p.totalCopies(), gt.nodeCount(), gt.rackCount());
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
                addExpertFlows(e, k, sendTok, recvTok);
            }
        }
        return max;
    }

    /** Steps 1-9 on {@code p} unless the rule holds them already; then step 9's fill, if a probe replaced it. */
    private void searchAtThreshold(LayerPlacement p) {
        start(p);
        if (!found) {
            rule.advance(-1);
            found = true;
        } else if (!atThreshold) {
            rule.fillAtThreshold();
        }
        atThreshold = true;
    }

    /** Steps 1-7 on {@code p} and step 8 set to start, unless the rule holds {@code p} already. */
    private void start(LayerPlacement p) {
        if (gt == null) {
            throw new IllegalStateException("no layer: call startLayer first");
        }
        if (!p.sameCopiesAs(searched)) { // the rule reads the copies only, not masters or shards
            rule.prepare(gt, p, counts, totals, nodeSums);
            rule.begin(null);
            searched = p;
            found = false;
        }
    }

    /**
     * The routed flows of multi-copy expert e summed per (GPU, link class): the same sums as step 10, visiting only the
     * sources that can still send. After class 0 no source with tokens left shares a GPU with a copy with room, after
     * class 1 no node, after class 2 no rack; so inside a node (class 1), a rack (class 2) or the group (class 3) every
     * such pair is of that class, and "sources ascending, copies ascending" drains each source into the first copies
     * with room. Nodes (racks) share no sources or copies, so visiting them one by one gives the same sums.
     */
    private void addExpertFlows(int e, int k, long[] sendTok, long[] recvTok) {
        ExpertRouting r = routing;
        long left = r.start(rule, e);
        for (int j = 0; j < k; j++) {
            sendTok[r.gpuOfCopy[j] * 4] += r.sameGpu[j];
            recvTok[r.gpuOfCopy[j] * 4] += r.sameGpu[j];
        }
        // In a group within one node (one rack) every pair left after class 0 (class 1) is of class 1 (class 2): that
        // class is the last one then, as class 3 is otherwise.
        boolean oneNode = gt.nodeCount() == 1;
        boolean oneRack = gt.rackCount() == 1;
        if (left > 0 && !oneNode) {
            left = addGroupFlows(false, k, left, sendTok, recvTok);
        }
        if (left > 0 && !oneRack) {
            left = addGroupFlows(true, k, left, sendTok, recvTok);
        }
        // The last class: every source sends all it has left and every copy takes all its room (both sum to left).
        if (left > 0) {
            int cls = oneNode ? 1 : oneRack ? 2 : 3;
            for (int s = 0; s < gt.ep(); s++) {
                sendTok[s * 4 + cls] += r.avail[s];
            }
            for (int j = 0; j < k; j++) {
                recvTok[r.gpuOfCopy[j] * 4 + cls] += r.remaining[j];
            }
        }
    }

    /** Class 1 (by node) or class 2 ({@code rack}: by rack) of {@link #addExpertFlows}; returns the tokens left. */
    private long addGroupFlows(boolean rack, int k, long left, long[] sendTok, long[] recvTok) {
        ExpertRouting r = routing;
        int groups = rack ? gt.rackCount() : gt.nodeCount();
        int[] start = rack ? r.rackStart : r.nodeStart;
        int[] list = rack ? r.byRack : r.byNode;
        long[] avail = r.avail;
        long[] remaining = r.remaining;
        int cls = rack ? 2 : 1;
        r.groupCopiesWithRoom(gt, rack, k);
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
                    recvTok[r.gpuOfCopy[j] * 4 + cls] += y;
                    if (remaining[j] == 0) {
                        c++;
                    }
                }
                avail[s] = a;
            }
        }
        return left;
    }
}
