package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.quota.PlacementSearch;

/** Scorers for single layers, as the planner builds them. */
final class LayerFixtures {
    private LayerFixtures() {
    }

    /** A scorer of one layer of {@code ctx} on group {@code gt}, with a cost model and a search of its own. */
    static LayerScorer scorer(PlanningContext ctx, GroupTopology gt, long[] counts) {
        return new LayerScorer(ctx, ctx.newCostModel(), new PlacementSearch(), gt, counts,
                LayerDemand.of(gt, counts, ctx.shape().experts()));
    }
}
