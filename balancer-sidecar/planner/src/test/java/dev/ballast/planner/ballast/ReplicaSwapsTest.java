package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class ReplicaSwapsTest {

    @Test
    void swapsNeverSlowAPlacementMoveNoHomeAndKeepBalance() {
        SplittableRandom rnd = new SplittableRandom(5);
        int improved = 0;
        for (int trial = 0; trial < 20; trial++) {
            PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=4,racks=1", 16, 2, Mode.REPLICATE);
            GroupTopology gt = ctx.group(0, 0);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, LayerFixtures.skewed(rnd, 8, 16));
            LayerPlacement start = BalanceThenLocal.place(ctx, scorer.cost(), gt, scorer.demand(), null);
            double cap = Math.max(CandidateSelector.BALANCE_CAP, scorer.imbalance(scorer.maxLoad(start)));
            LayerPlacement p = ReplicaSwaps.improve(scorer, start);
            LayerFixtures.assertValid(p, ctx.redundantSlots());
            assertThat(scorer.seconds(p, null)).as("trial %d", trial).isLessThanOrEqualTo(scorer.seconds(start, null));
            assertThat(scorer.imbalance(scorer.maxLoad(p))).isLessThanOrEqualTo(cap);
            for (int g = 0; g < 8; g++) {
                assertThat(p.expertCount(g)).isEqualTo(start.expertCount(g)); // a swap keeps the slot it fills
                assertThat(p.holds(g, 2 * g)).isTrue();
                assertThat(p.holds(g, 2 * g + 1)).isTrue();
            }
            improved += scorer.seconds(p, null) < scorer.seconds(start, null) ? 1 : 0;
            // A placement no swap improves is its own result.
            assertThat(ReplicaSwaps.improve(scorer, p)).isEqualTo(p);
        }
        assertThat(improved).as("layers a swap made faster").isPositive();
    }

    @Test
    void onlySmallLayersAreSearched() {
        assertThat(ReplicaSwaps.applies(LayerFixtures.context("nodes=2,gpusPerNode=4,racks=1", 16, 2, Mode.REPLICATE)
                .group(0, 0), 16, 2)).isTrue();
        assertThat(ReplicaSwaps.applies(LayerFixtures.context("nodes=2,gpusPerNode=8,racks=1", 64, 2, Mode.REPLICATE)
                .group(0, 0), 64, 2)).isFalse();
    }
}
