package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The incremental planner moves copies only when the predicted gain over the interval beats their cost and price. */
class IncrementalWalkTest {

    private static long[] skewed(SplittableRandom r, int ep, int experts) {
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

    @Test
    void everyIncrementalChangePaysForItsCopiesAndPrice() {
        SplittableRandom r = new SplittableRandom(3);
        Topology topo = Topology.parse("nodes=4,gpusPerNode=4,racks=2");
        int experts = 48;
        MoeShape shape = MoeShape.generic("t", 1, experts, 4);
        Parallelism par = Parallelism.resolve(topo.gpus(), experts, null, 1);
        PlanningContext ctx = new PlanningContext(topo, par, shape, Mode.REPLICATE, 2, 50);
        GroupTopology gt = ctx.group(0, 0);
        LayerPlacement staticP = LayerPlacement.staticLayout(par.ep(), experts);
        BallastPlanner incremental = new BallastPlanner(true);
        int changed = 0;
        int kept = 0;
        for (int trial = 0; trial < 40; trial++) {
            long[] before = skewed(r, par.ep(), experts);
            long[] after = trial % 2 == 0 ? before : skewed(r, par.ep(), experts);
            LayerPlacement current = new BallastPlanner(false).placeLayer(LayerFixtures.scorer(ctx, gt, before), null, staticP);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, after);
            LayerPlacement next = incremental.placeLayer(scorer, current, staticP);
            double keep = scorer.seconds(current, current);
            if (next.equals(current)) {
                kept++;
                continue;
            }
            changed++;
            int copies = 0;
            for (int g = 0; g < next.gpus(); g++) {
                for (int i = 0; i < next.expertCount(g); i++) {
                    copies += current.holds(g, next.expertAt(g, i)) ? 0 : 1;
                }
            }
            double moved = scorer.seconds(next, current);
            assertThat(moved + copies * IncrementalWalk.HYSTERESIS * keep).as("trial %d", trial).isLessThan(keep);
        }
        // Both branches are exercised: some re-plans move copies, some keep the plan in use.
        assertThat(changed).isGreaterThan(0);
        assertThat(kept).isGreaterThan(0);
    }
}
