package dev.ballast.planner.ballast;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A data-parallel copy whose inputs equal an earlier copy's takes that copy's placement without being planned again:
 * the placement must be the one planning it gives, from scratch and incrementally, serial and on threads.
 */
class SameInputCopiesTest {

    @Test
    void aCopyWithAnEarlierCopysInputsGetsThePlacementPlanningItGives() {
        SplittableRandom r = new SplittableRandom(5);
        Topology topo = Topology.parse("nodes=4,gpusPerNode=4,racks=2");
        int experts = 32;
        int layers = 3;
        Parallelism par = Parallelism.resolve(topo.gpus(), experts, 8, 1);
        PlanningContext ctx = new PlanningContext(topo, par, MoeShape.generic("t", layers, experts, 4), Mode.REPLICATE, 2, 50);
        ModelLoads same = new ModelLoads(layers, par.dp(), 8, experts);
        ModelLoads later = new ModelLoads(layers, par.dp(), 8, experts);
        for (int l = 0; l < layers; l++) {
            long[] a = LayerFixtures.skewed(r, 8, experts);
            long[] b = LayerFixtures.skewed(r, 8, experts);
            for (int c = 0; c < par.dp(); c++) {
                System.arraycopy(a, 0, same.counts(l, c), 0, a.length);
                System.arraycopy(b, 0, later.counts(l, c), 0, b.length);
            }
        }
        // The same counts, except one token in copy 0 of each layer: nothing is shared with copy 1 there.
        ModelLoads apart = copy(same, layers, par.dp());
        ModelLoads laterApart = copy(later, layers, par.dp());
        for (int l = 0; l < layers; l++) {
            apart.counts(l, 0)[0]++;
            laterApart.counts(l, 0)[0]++;
        }
        for (int threads : new int[] {1, 2}) {
            BallastPlanner planner = new BallastPlanner(true, threads);
            Plan first = planner.plan(new PlanRequest(ctx, same, null, new PlanVersion(1, 1), 0));
            Plan firstApart = planner.plan(new PlanRequest(ctx, apart, null, new PlanVersion(1, 1), 0));
            Plan next = planner.plan(new PlanRequest(ctx, later, first, new PlanVersion(1, 2), 50));
            Plan nextApart = planner.plan(new PlanRequest(ctx, laterApart, first, new PlanVersion(1, 2), 50));
            for (int l = 0; l < layers; l++) {
                assertThat(first.placement(l, 1)).isEqualTo(firstApart.placement(l, 1));
                assertThat(next.placement(l, 1)).isEqualTo(nextApart.placement(l, 1));
                assertThat(first.placement(l, 1)).isEqualTo(first.placement(l, 0));
            }
        }
    }

    private static ModelLoads copy(ModelLoads m, int layers, int dp) {
        ModelLoads out = new ModelLoads(layers, dp, 8, m.counts(0, 0).length / 8);
        for (int l = 0; l < layers; l++) {
            for (int c = 0; c < dp; c++) {
                System.arraycopy(m.counts(l, c), 0, out.counts(l, c), 0, m.counts(l, c).length);
            }
        }
        return out;
    }
}
