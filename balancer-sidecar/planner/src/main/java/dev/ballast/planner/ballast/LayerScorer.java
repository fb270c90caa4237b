package dev.ballast.planner.ballast;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.cost.LayerCost;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.quota.PlacementSearch;

/**
 * How the planner weighs placements of one layer: the quota rule on the layer's counts (through a
 * {@link PlacementSearch} bound to this layer) and the cost model over the re-plan interval. Every score is a
 * prediction for the interval: the steady-state time per step times the interval, plus any one-off copy.
 */
public final class LayerScorer {
    private final PlanningContext context;
    private final CostModel cost;
    private final PlacementSearch search;
    private final GroupTopology gt;
    private final LayerDemand demand;
    private final double interval;
    private final boolean nodeShards;

    /** Binds {@code search} to this layer (it forgets any earlier one); {@code demand} is summed from {@code counts}. */
    public LayerScorer(PlanningContext context, CostModel cost, PlacementSearch search, GroupTopology gt, long[] counts,
                       LayerDemand demand) {
        this(context, cost, search, gt, counts, demand, true);
    }

    /** {@code nodeShards}: whether, in fssdp mode, experts may be sharded over one node ({@link NodeShards}). */
    public LayerScorer(PlanningContext context, CostModel cost, PlacementSearch search, GroupTopology gt, long[] counts,
                       LayerDemand demand, boolean nodeShards) {
        this.context = context;
        this.cost = cost;
        this.search = search;
        this.gt = gt;
        this.demand = demand;
        this.interval = context.replanInterval();
        this.nodeShards = nodeShards && context.mode() == Mode.FSSDP;
        search.startLayer(gt, counts, demand.totals(), demand.nodeDemand());
    }

    public PlanningContext context() {
        return context;
    }

    public CostModel cost() {
        return cost;
    }

    public GroupTopology group() {
        return gt;
    }

    public LayerDemand demand() {
        return demand;
    }

    /** The quota rule's busiest GPU load on {@code p}. */
    public long maxLoad(LayerPlacement p) {
        return search.maxLoad(p);
    }

    /**
     * At least {@link #maxLoad}{@code (p)}, and at most {@code enough} when the rule's search finds a feasible threshold
     * that low on its way (it stops there; {@link PlacementSearch#maxLoadAtMost}).
     */
    public long maxLoadAtMost(LayerPlacement p, long enough) {
        return search.maxLoadAtMost(p, enough);
    }

    /** The quota rule's quota of each copy of {@code p}, by copy index (steps 1-9, no routing). */
    public long[] copyQuotas(LayerPlacement p) {
        return search.copyQuotas(p);
    }

    /** The quota rule's loads on {@code p} and the expert its fill cannot place at {@code aim}. */
    public PlacementSearch.Probe probe(LayerPlacement p, long aim) {
        return search.probe(p, aim);
    }

    /** Busiest GPU over the mean for the quota rule's busiest load {@code maxLoad} (1 for an empty layer). */
    public double imbalance(long maxLoad) {
        return demand.allTokens() == 0 ? 1.0 : maxLoad * (double) gt.ep() / demand.allTokens();
    }

    /** The cost model's steady-state cost of {@code p} for one step under the quota rule (no adoption). */
    public LayerCost steady(LayerPlacement p) {
        return cost.quotaRuleLayer(search, shaped(p), demand.home(), null);
    }

    /**
     * The placement a score weighs: in fssdp mode a placement without node shards is weighed with the ones
     * {@link NodeShards} would give it, so every step searches for placements that gather over NVLink where they can;
     * {@link NodeShards#apply} makes the final choice with {@link #secondsAsIs}.
     */
    private LayerPlacement shaped(LayerPlacement p) {
        return nodeShards && !p.hasNodeShards() ? NodeShards.homeNodeOnly(this, p) : p;
    }

    /** Whether this layer's placements may shard experts over one node (fssdp, not turned off). */
    public boolean nodeShards() {
        return nodeShards;
    }

    /**
     * Predicted seconds of {@code p} over the interval: steady-state time × interval, plus the one-off copy of the
     * copies not in {@code chargeFrom} (null: none charged). Infinite for a placement that leaves an expert without a
     * copy (invalid: never chosen).
     */
    public double seconds(LayerPlacement p, LayerPlacement chargeFrom) {
        return secondsAsIs(shaped(p), chargeFrom);
    }

    /** {@link #seconds} of {@code p} with its shards exactly as they are. */
    public double secondsAsIs(LayerPlacement p, LayerPlacement chargeFrom) {
        for (int e = 0; e < p.experts(); e++) {
            if (p.copies(e) == 0) {
                // Only fssdp plans may lack a home copy, so only there can a partial change leave an expert uncovered.
                return Double.POSITIVE_INFINITY;
            }
        }
        // The one-off copy only changes parameter traffic: that part is summed with and without it.
        return cost.quotaRuleScore(search, p, demand.home(), chargeFrom != null && p != chargeFrom ? chargeFrom : null,
                interval);
    }

    /**
     * At most {@link #seconds}{@code (p, chargeFrom)} for any {@code chargeFrom}: the rule's steps 1-9 on {@code p}
     * (which a {@link #seconds} of the same placement next reuses) and what its copies receive, without the sources'
     * sends ({@link CostModel#quotaRuleFloor}). Infinite where {@link #seconds} is.
     */
    public double floor(LayerPlacement p) {
        LayerPlacement q = shaped(p);
        for (int e = 0; e < q.experts(); e++) {
            if (q.copies(e) == 0) {
                return Double.POSITIVE_INFINITY;
            }
        }
        return cost.quotaRuleFloor(search, q, demand.homeRecv()) * interval;
    }

    /** At least {@link #seconds}{@code (p, null)}, from the rule's busiest load {@code maxLoad} without routing. */
    public double upperBound(LayerPlacement p, long maxLoad) {
        return cost.upperBound(gt, shaped(p), maxLoad, demand.maxSent()) * interval;
    }

    /**
     * Exact predicted seconds of the static layout {@code staticP}, whose busiest GPU carries {@code maxLoad}: the rule
     * routes every token home there, so the all-at-home sums give its time without running the rule.
     */
    public double staticSeconds(LayerPlacement staticP, long maxLoad) {
        return cost.staticLayer(gt, staticP, demand.allTokens(), demand.home(), maxLoad).totalSec() * interval;
    }

    /** At most {@link #staticSeconds}, from what the static layout's GPUs receive alone. */
    public double staticFloor(long maxLoad) {
        return cost.staticLowerBound(gt, demand.homeRecv(), maxLoad) * interval;
    }
}
