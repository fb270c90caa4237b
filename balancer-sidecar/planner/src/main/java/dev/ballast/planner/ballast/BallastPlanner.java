package dev.ballast.planner.ballast;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.Planner;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.planners.Routing;
import dev.ballast.planner.quota.PlacementSearch;

/**
 * Ballast's planner (docs/planner.md has the full description). Per EP group and layer, from the layer's
 * {@link LayerDemand}:
 * <ol>
 * <li>First choice, from scratch ({@link BalanceThenLocal}): shed load with every slot open ({@link LoadShedder}), then
 *     local replicas in the slots balance left ({@link LocalReplicas}, within the {@link ParameterBudget}), then shed
 *     again.</li>
 * <li>The {@link CandidateSelector} takes it if it is predicted no slower than static and its quota-rule max/mean is
 *     within {@link CandidateSelector#BALANCE_CAP}, or can be topped up to it ({@link TopUp}). Otherwise (rare) the
 *     {@link LocalShareCandidates} decide.</li>
 * <li>Incremental (plan in use given, {@code ballast}): an {@link IncrementalWalk} from the plan in use towards the
 *     scratch winner re-aligned to it ({@link Realignment}) and a repair that keeps its still-useful replicas
 *     ({@link BalanceThenLocal} seeded with it). {@code ballast-scratch} ignores the plan in use.</li>
 * </ol>
 * Every placement is weighed by one {@link LayerScorer} per layer: the quota rule the trainers run and the cost model.
 */
public final class BallastPlanner implements Planner {
    private final boolean incremental;

    public BallastPlanner(boolean incremental) {
        this.incremental = incremental;
    }

    @Override
    public String name() {
        return incremental ? "ballast" : "ballast-scratch";
    }

    @Override
    public Routing routing() {
        return Routing.QUOTA_RULE;
    }

    @Override
    public Plan plan(PlanRequest r) {
        PlanningContext c = r.context();
        int layers = c.shape().layers();
        int experts = c.shape().experts();
        CostModel cost = c.newCostModel();
        PlacementSearch search = new PlacementSearch();
        LayerPlacement staticP = LayerPlacement.staticLayout(c.parallelism().ep(), experts);
        LayerPlacement[][] out = new LayerPlacement[layers][c.parallelism().dp()];
        for (int l = 0; l < layers; l++) {
            for (int copy = 0; copy < c.parallelism().dp(); copy++) {
                LayerPlacement current = r.current() == null ? null : r.current().placement(l, copy);
                GroupTopology gt = c.groupOfLayer(l, copy);
                long[] counts = r.predicted().counts(l, copy);
                LayerScorer scorer = new LayerScorer(c, cost, search, gt, counts, LayerDemand.of(gt, counts, experts));
                out[l][copy] = placeLayer(scorer, current, staticP);
            }
        }
        return new Plan(r.version(), r.earliestStep(), c.mode(), name(), experts, c.parallelism(), out);
    }

    /** One layer's placement, weighed by {@code scorer}; {@code current} is the plan in use's (null: none). */
    public LayerPlacement placeLayer(LayerScorer scorer, LayerPlacement current, LayerPlacement staticP) {
        PlanningContext c = scorer.context();
        GroupTopology gt = scorer.group();
        LayerDemand demand = scorer.demand();
        CandidateSelector selector = new CandidateSelector(scorer, staticP);
        LayerPlacement first = BalanceThenLocal.place(c, scorer.cost(), gt, demand, null);
        LayerPlacement best = selector.pick(selector.score(first));
        if (best == null) {
            best = LocalShareCandidates.choose(c, gt, demand, selector);
        }
        if (!incremental || current == null) {
            return best;
        }
        return IncrementalWalk.towards(scorer, current, Realignment.align(gt, best, current, c.redundantSlots()),
                BalanceThenLocal.place(c, scorer.cost(), gt, demand, current));
    }
}
