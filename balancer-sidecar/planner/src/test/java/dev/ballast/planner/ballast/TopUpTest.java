package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class TopUpTest {

    @Test
    void toppingUpOnlyAddsReplicasInFreeSlotsAndNeverMakesTheBusiestGpuBusier() {
        SplittableRandom rnd = new SplittableRandom(4);
        int changed = 0;
        for (int trial = 0; trial < 40; trial++) {
            PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=4,racks=1", 32, 3, Mode.REPLICATE);
            GroupTopology gt = ctx.group(0, 0);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, LayerFixtures.skewed(rnd, 8, 32));
            LayerPlacement p = LocalShareCandidates.shed(ctx, gt, scorer.demand(), 12, null);
            long before = scorer.maxLoad(p);
            LayerPlacement topped = TopUp.topUp(scorer, p, before);
            LayerFixtures.assertValid(topped, ctx.redundantSlots());
            for (int g = 0; g < 8; g++) {
                for (int e : p.expertsOn(g)) {
                    assertThat(topped.holds(g, e)).as("trial %d keeps expert %d on GPU %d", trial, e, g).isTrue();
                }
            }
            if (topped == p) {
                continue;
            }
            changed++;
            assertThat(scorer.maxLoad(topped)).isLessThanOrEqualTo(before);
        }
        assertThat(changed).as("the fixture exercises topping up").isPositive();
    }

    @Test
    void aBalancedPlacementComesBackAsItIs() {
        PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=4,racks=1", 8, 2, Mode.REPLICATE);
        long[] even = new long[64];
        java.util.Arrays.fill(even, 100);
        LayerScorer scorer = LayerFixtures.scorer(ctx, ctx.group(0, 0), even);
        LayerPlacement staticP = LayerPlacement.staticLayout(8, 8);
        assertThat(TopUp.topUp(scorer, staticP, scorer.maxLoad(staticP))).isSameAs(staticP);
    }
}
