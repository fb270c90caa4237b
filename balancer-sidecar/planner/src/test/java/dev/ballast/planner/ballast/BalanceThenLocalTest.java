package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class BalanceThenLocalTest {

    @Test
    void thePlacementIsValidLeavesASlotPerNodeForTheTopUpAndBalancesBetterThanStatic() {
        SplittableRandom rnd = new SplittableRandom(1);
        for (int trial = 0; trial < 30; trial++) {
            PlanningContext ctx = LayerFixtures.context("nodes=4,gpusPerNode=2,racks=2", 32, 2, Mode.REPLICATE);
            GroupTopology gt = ctx.group(0, 0);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, LayerFixtures.skewed(rnd, 8, 32));
            LayerPlacement p = BalanceThenLocal.place(ctx, scorer.cost(), gt, scorer.demand(), null);
            LayerFixtures.assertValid(p, ctx.redundantSlots());
            int used = 0;
            for (int g = 0; g < 8; g++) {
                used += p.nonHomeCopies(g);
            }
            assertThat(used).as("trial %d", trial).isLessThanOrEqualTo(8 * ctx.redundantSlots() - gt.nodeCount());
            LayerPlacement staticP = LayerPlacement.staticLayout(8, 32);
            assertThat(scorer.maxLoad(p)).isLessThanOrEqualTo(scorer.maxLoad(staticP));
        }
    }

    @Test
    void aSeedsUsefulReplicasAreKept() {
        SplittableRandom rnd = new SplittableRandom(2);
        int kept = 0;
        for (int trial = 0; trial < 20; trial++) {
            PlanningContext ctx = LayerFixtures.context("nodes=4,gpusPerNode=2,racks=2", 32, 2, Mode.FSSDP);
            GroupTopology gt = ctx.group(0, 0);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, LayerFixtures.skewed(rnd, 8, 32));
            LayerPlacement seed = BalanceThenLocal.place(ctx, scorer.cost(), gt, scorer.demand(), null);
            // Same loads: in fssdp a replica costs nothing extra, so every seeded replica with node-local tokens stays.
            LayerPlacement repaired = BalanceThenLocal.place(ctx, scorer.cost(), gt, scorer.demand(), seed);
            LayerFixtures.assertValid(repaired, ctx.redundantSlots());
            for (int g = 0; g < 8; g++) {
                for (int e : seed.expertsOn(g)) {
                    if (repaired.holds(g, e)) {
                        kept++;
                    }
                }
            }
        }
        assertThat(kept).isPositive();
    }
}
