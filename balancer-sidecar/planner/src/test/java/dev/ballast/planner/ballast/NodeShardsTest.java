package dev.ballast.planner.ballast;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.MemoryBudget;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class NodeShardsTest {

    @Test
    void theChosenLayoutIsNeverPredictedSlowerThanEvenShardsAndFitsTheMemoryBudget() {
        SplittableRandom rnd = new SplittableRandom(5);
        int sharded = 0;
        for (int trial = 0; trial < 40; trial++) {
            PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=4,racks=1", 16, 2, Mode.FSSDP);
            GroupTopology gt = ctx.group(0, 0);
            long[] counts = LayerFixtures.skewed(rnd, 8, 16);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, counts);
            LayerPlacement p = LocalShareCandidates.shed(ctx, gt, scorer.demand(), rnd.nextInt(8), null);
            LayerPlacement chosen = NodeShards.apply(scorer, p, null);
            assertThat(NodeShards.even(chosen)).isEqualTo(p);
            assertThat(scorer.secondsAsIs(chosen, null)).isLessThanOrEqualTo(scorer.secondsAsIs(p, null));
            assertWithinMemory(ctx, gt, chosen);
            sharded += chosen.hasNodeShards() ? 1 : 0;
        }
        assertThat(sharded).as("layers where node shards paid").isPositive();
    }

    @Test
    void aNodeThatWouldHoldTooMuchStateUnshardsItsHighestExpertsFirst() {
        // 2 nodes of 2 GPUs, 8 experts, 2 redundant slots, node 0's GPUs with one replica each. Node 0 shards k of its
        // 4 home experts (0-3) over its 2 GPUs, node 1 none: node 0's GPUs own 2 + k/4 experts of state against the
        // even layout's 2, which one free slot's working copy must pay for.
        PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=2,racks=1", 8, 2, Mode.FSSDP);
        GroupTopology gt = ctx.group(0, 0);
        LayerPlacement p = LayerPlacement.of(8, new int[][] {{0, 1, 4}, {2, 3, 6}, {4, 5}, {6, 7}});
        LayerScorer scorer = LayerFixtures.scorer(ctx, gt, new long[4 * 8]);
        double budget = MemoryBudget.layerBytes(ctx.shape(), 2.0, ctx.slotsPerGpu());
        int fits = 0;
        while (fits < 4 && MemoryBudget.layerBytes(ctx.shape(), 2 + (fits + 1) / 4.0, 3) <= budget) {
            fits++;
        }
        assertThat(fits).as("the case leaves room for some but not all").isBetween(1, 3);
        boolean[] nodeZero = {true, true, true, true, false, false, false, false};
        boolean[] kept = NodeShards.withinMemory(scorer, p, nodeZero);
        assertWithinMemory(ctx, gt, p.withNodeShards(kept));
        for (int e = 0; e < 8; e++) {
            assertThat(kept[e]).as("expert %d", e).isEqualTo(e < fits);
        }
        // With homes only (two free slots), node 0 keeps more.
        assertThat(count(NodeShards.withinMemory(scorer, LayerPlacement.staticLayout(4, 8), nodeZero))).isGreaterThan(fits);
    }

    private static int count(boolean[] f) {
        int n = 0;
        for (boolean b : f) {
            n += b ? 1 : 0;
        }
        return n;
    }

    private static void assertWithinMemory(PlanningContext ctx, GroupTopology gt, LayerPlacement p) {
        double budget = MemoryBudget.layerBytes(ctx.shape(), (double) p.experts() / gt.ep(), ctx.slotsPerGpu());
        for (int g = 0; g < gt.ep(); g++) {
            assertThat(MemoryBudget.layerBytes(ctx.shape(), CostModel.ownedExperts(gt, p, g), p.physicalSlots(g)))
                    .as("GPU %d", g).isLessThanOrEqualTo(budget * (1 + 1e-12));
        }
    }
}
