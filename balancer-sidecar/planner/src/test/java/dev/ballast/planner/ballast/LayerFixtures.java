package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.StaticLayout;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.quota.PlacementSearch;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** Contexts, counts and scorers for single layers, as the planner builds them. */
final class LayerFixtures {
    private LayerFixtures() {
    }

    /** One stage, one EP group over the whole topology, one layer. */
    static PlanningContext context(String topology, int experts, int slots, Mode mode) {
        Topology topo = Topology.parse(topology);
        Parallelism par = Parallelism.resolve(topo.gpus(), experts, null, 1);
        return new PlanningContext(topo, par, MoeShape.generic("t", 1, experts, 4), mode, slots, 50);
    }

    /** A few hot experts (one in six), each source sending them 1-8 times a base amount. */
    static long[] skewed(SplittableRandom r, int ep, int experts) {
        long[] hot = new long[experts];
        for (int e = 0; e < experts; e++) {
            hot[e] = r.nextInt(6) == 0 ? 50 + r.nextInt(400) : 1 + r.nextInt(20);
        }
        long[] x = new long[ep * experts];
        for (int i = 0; i < x.length; i++) {
            x[i] = hot[i % experts] * (1 + r.nextInt(8));
        }
        return x;
    }

    /**
     * The loadbench's shape of counts: every source sends expert e at popularity rank (e + shift) % experts with
     * weight 1 / (rank + 1), so shift + 1 moves the hot set by one rank.
     */
    static long[] zipf(int ep, int experts, int shift) {
        long[] c = new long[ep * experts];
        for (int s = 0; s < ep; s++) {
            for (int e = 0; e < experts; e++) {
                c[s * experts + e] = Math.round(4096.0 / ((e + shift) % experts + 1));
            }
        }
        return c;
    }

    /** A scorer of one layer of {@code ctx} on group {@code gt}, with a cost model and a search of its own. */
    static LayerScorer scorer(PlanningContext ctx, GroupTopology gt, long[] counts) {
        return new LayerScorer(ctx, ctx.newCostModel(), new PlacementSearch(), gt, counts,
                LayerDemand.of(gt, counts, ctx.shape().experts()));
    }

    /**
     * The loadbench's shift of the hot set on layers of {@code ctx} with {@code experts} experts: {@code current}, the
     * from-scratch plan for {@link #zipf} order {@code shift}; {@code scorer}, a scorer of order {@code shift + 1};
     * {@code hot}, the expert that has just become hottest.
     */
    record Shift(LayerPlacement current, LayerScorer scorer, int hot) {
        static Shift of(PlanningContext ctx, GroupTopology gt, int experts, int shift) {
            LayerPlacement current = new BallastPlanner(false).placeLayer(
                    LayerFixtures.scorer(ctx, gt, zipf(gt.ep(), experts, shift)), null,
                    LayerPlacement.staticLayout(gt.ep(), experts));
            return new Shift(current, LayerFixtures.scorer(ctx, gt, zipf(gt.ep(), experts, shift + 1)),
                    Math.floorMod(-(shift + 1), experts));
        }
    }

    /** Every expert on its home, at most {@code slots} other copies per GPU, none twice on a GPU. */
    static void assertValid(LayerPlacement p, int slots) {
        int ep = p.gpus();
        for (int e = 0; e < p.experts(); e++) {
            assertThat(p.holds(StaticLayout.home(e, ep, p.experts()), e)).as("expert %d at home", e).isTrue();
        }
        for (int g = 0; g < ep; g++) {
            assertThat(p.nonHomeCopies(g)).as("replicas on GPU %d", g).isLessThanOrEqualTo(slots);
        }
    }
}
