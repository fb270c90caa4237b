package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class LocalFillTest {
    @Test
    void aNodeLocalReplicaGoesIntoAFreeSlotWhenItShortensThePredictedTime() {
        // Two nodes of two GPUs, four experts; node 1's sources send expert 0 (homed on node 0) most of their tokens.
        PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=2", 4, 1, Mode.REPLICATE);
        GroupTopology gt = ctx.group(0, 0);
        long[] counts = new long[4 * 4];
        for (int s = 0; s < 4; s++) {
            for (int e = 0; e < 4; e++) {
                counts[s * 4 + e] = 20_000;
            }
            if (s >= 2) {
                counts[s * 4] = 80_000;
            }
        }
        LayerScorer scorer = LayerFixtures.scorer(ctx, gt, counts);
        LayerPlacement staticP = LayerPlacement.staticLayout(4, 4);
        LayerPlacement filled = LocalFill.fill(scorer, staticP);
        assertThat(filled.holds(2, 0) || filled.holds(3, 0)).as("expert 0 on node 1").isTrue();
        assertThat(scorer.steady(filled).totalSec()).isLessThan(scorer.steady(staticP).totalSec());
        LayerFixtures.assertValid(filled, 1);
    }

    @Test
    void neverSlowerNeverOverTheSlotsAndDeterministic() {
        SplittableRandom r = new SplittableRandom(5);
        for (int trial = 0; trial < 40; trial++) {
            PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=4", 16, 2,
                    trial % 2 == 0 ? Mode.REPLICATE : Mode.FSSDP);
            GroupTopology gt = ctx.group(0, 0);
            long[] counts = LayerFixtures.skewed(r, 8, 16);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, counts);
            LayerPlacement start = BalanceThenLocal.place(ctx, scorer.cost(), gt, scorer.demand(), null);
            LayerPlacement a = LocalFill.fill(scorer, start);
            LayerPlacement b = LocalFill.fill(LayerFixtures.scorer(ctx, gt, counts), start);
            assertThat(a).isEqualTo(b);
            LayerFixtures.assertValid(a, 2);
            assertThat(scorer.steady(a).totalSec()).isLessThanOrEqualTo(scorer.steady(start).totalSec() * (1 + 1e-9));
        }
    }
}
