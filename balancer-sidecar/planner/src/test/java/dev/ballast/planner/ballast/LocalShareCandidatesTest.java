package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class LocalShareCandidatesTest {

    @Test
    void theChoiceIsValidAndNeverPredictedSlowerThanStatic() {
        SplittableRandom rnd = new SplittableRandom(1);
        for (int trial = 0; trial < 30; trial++) {
            PlanningContext ctx = LayerFixtures.context("nodes=4,gpusPerNode=2,racks=2", 32, 1 + rnd.nextInt(2), Mode.REPLICATE);
            GroupTopology gt = ctx.group(0, 0);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, LayerFixtures.skewed(rnd, 8, 32));
            LayerPlacement staticP = LayerPlacement.staticLayout(8, 32);
            LayerPlacement p = LocalShareCandidates.choose(ctx, gt, scorer.demand(), new CandidateSelector(scorer, staticP));
            LayerFixtures.assertValid(p, ctx.redundantSlots());
            assertThat(scorer.seconds(p, null)).as("trial %d", trial).isLessThanOrEqualTo(scorer.seconds(staticP, null) * (1 + 1e-12));
        }
    }

    @Test
    void everyLocalShareGivesAValidPlacement() {
        SplittableRandom rnd = new SplittableRandom(2);
        PlanningContext ctx = LayerFixtures.context("nodes=4,gpusPerNode=2,racks=2", 32, 2, Mode.REPLICATE);
        GroupTopology gt = ctx.group(0, 0);
        LayerDemand d = LayerDemand.of(gt, LayerFixtures.skewed(rnd, 8, 32), 32);
        for (int local : new int[] {0, 4, 8}) {
            LayerFixtures.assertValid(LocalShareCandidates.shed(ctx, gt, d, local, null), ctx.redundantSlots());
        }
    }

    @Test
    void everyNodeGetsACopyOfEveryExpertItsSourcesUseWhenSlotsAllow() {
        // 2 nodes x 4 GPUs, 8 experts, 2 free slots per GPU: 4 experts are missing on each node and 8 slots are free
        // there, so every node can hold every expert, whatever a replica would save.
        PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=4,racks=1", 8, 2, Mode.REPLICATE);
        GroupTopology gt = ctx.group(0, 0);
        SplittableRandom rnd = new SplittableRandom(3);
        long[] counts = new long[8 * 8];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = 1 + rnd.nextInt(50);
        }
        LayerPlacement p = LocalShareCandidates.everyNode(ctx, gt, LayerDemand.of(gt, counts, 8));
        LayerFixtures.assertValid(p, ctx.redundantSlots());
        for (int node = 0; node < 2; node++) {
            for (int e = 0; e < 8; e++) {
                boolean held = false;
                for (int g = 4 * node; g < 4 * node + 4; g++) {
                    held |= p.holds(g, e);
                }
                assertThat(held).as("expert %d on node %d", e, node).isTrue();
            }
        }
    }
}
