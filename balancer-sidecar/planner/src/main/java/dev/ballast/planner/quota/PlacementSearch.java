package dev.ballast.planner.quota;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;

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
    private final FlowSums flowSums = new FlowSums();
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
     * routing (every expert's tokens sent to its static home); each expert routed otherwise has its difference from
     * that added ({@link FlowSums}). The same sums as visiting {@link QuotaRule#apply}'s flows. Returns the busiest
     * GPU's load.
     */
    public long addFlows(LayerPlacement p, long[] sendTok, long[] recvTok) {
        long max = maxLoad(p);
        flowSums.add(gt, p, counts, totals, rule.quota, sendTok, recvTok);
        return max;
    }

    /**
     * The received half of {@link #addFlows} alone: {@code recvTok[g * 4 + class]} arrives holding the all-at-home
     * routing's receipts and leaves holding step 10's, the same as {@link #addFlows} leaves them. With the counts' node
     * sums given ({@link #startLayer(GroupTopology, long[], long[], long[])}) no source's counts are visited beyond the
     * copies' own GPUs. Returns the busiest GPU's load.
     */
    public long addReceived(LayerPlacement p, long[] recvTok) {
        long max = maxLoad(p);
        if (nodeSums == null) {
            flowSums.add(gt, p, counts, totals, rule.quota, new long[gt.ep() * 4], recvTok);
        } else {
            flowSums.addReceived(gt, p, counts, totals, nodeSums, rule.quota, recvTok);
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
}
