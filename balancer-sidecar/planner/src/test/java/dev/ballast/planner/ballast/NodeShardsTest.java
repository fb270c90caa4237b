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
        int[] nodeZero = {0, 0, 1, 1, -1, -1, -1, -1};
        int[] kept = NodeShards.withinMemory(scorer, p, nodeZero);
        assertWithinMemory(ctx, gt, p.withShardRanks(kept));
        for (int e = 0; e < 8; e++) {
            assertThat(kept[e]).as("expert %d", e).isEqualTo(e < fits ? nodeZero[e] : -1);
        }
        // With homes only (two free slots), node 0 keeps more.
        assertThat(count(NodeShards.withinMemory(scorer, LayerPlacement.staticLayout(4, 8), nodeZero))).isGreaterThan(fits);
    }

    @Test
    void anExpertWhoseCopiesAllSitOnAnotherNodeIsShardedThere() {
        // 2 nodes of 2 GPUs, 4 experts homed one per GPU. Expert 1 (home: GPU 1, node 0) has its only copy on GPU 2
        // (node 1): its state is sharded over node 1, named by its lowest rank, 2. Experts 0 (both copies on node 0)
        // and 3 keep their copies on their home node, named by their home; expert 2, with copies on both nodes, stays
        // over the whole group.
        PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=2,racks=1", 4, 2, Mode.FSSDP);
        GroupTopology gt = ctx.group(0, 0);
        LayerPlacement p = LayerPlacement.of(4, new int[][] {{0}, {0, 2}, {1, 2}, {3}});
        LayerScorer scorer = LayerFixtures.scorer(ctx, gt, new long[4 * 4]);
        LayerPlacement q = NodeShards.singleNode(scorer, p);
        assertThat(new int[] {q.shardRank(0), q.shardRank(1), q.shardRank(2), q.shardRank(3)})
                .containsExactly(0, 2, -1, 3);
        assertThat(q.hasShardsAwayFromHome()).isTrue();
        // The search's layout keeps expert 1 over the whole group: its state would have to leave home.
        LayerPlacement h = NodeShards.homeNodeOnly(scorer, p);
        assertThat(new int[] {h.shardRank(0), h.shardRank(1), h.shardRank(2), h.shardRank(3)})
                .containsExactly(0, -1, -1, 3);
        // A walk's partial change may leave an expert without a copy (its score is infinite): it stays unsharded.
        LayerPlacement uncovered = LayerPlacement.of(4, new int[][] {{0}, {0}, {2}, {3}});
        assertThat(NodeShards.singleNode(scorer, uncovered).shardRank(1)).isEqualTo(-1);
    }

    @Test
    void aNodeSharedLayoutAwayFromHomeGathersOverNvlinkAloneAndMovesItsStateOnce() {
        // Expert 1's only copy on GPU 2 (node 1), every other expert one copy at home and node-sharded there: sharded
        // over node 1, expert 1's gathers stay on node 1's NVLink, where sharded over its home node (0) or the whole
        // group they cross the network every step.
        PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=2,racks=1", 4, 2, Mode.FSSDP);
        GroupTopology gt = ctx.group(0, 0);
        LayerPlacement p = LayerPlacement.of(4, new int[][] {{0}, {}, {1, 2}, {3}});
        LayerScorer scorer = LayerFixtures.scorer(ctx, gt, new long[4 * 4]);
        int[] away = {0, 2, 2, 3};
        int[] home = {0, 1, 2, 3};
        LayerPlacement there = p.withShardRanks(away);
        LayerPlacement atHome = p.withShardRanks(home);
        assertThat(scorer.steady(there).interNodeParamBytes()).isZero();
        assertThat(scorer.steady(atHome).interNodeParamBytes()).isPositive();
        assertThat(scorer.steady(p.withShardRanks(new int[] {0, -1, 2, 3})).interNodeParamBytes()).isPositive();
        // Adopting it after the home-node layout moves expert 1's state across the network once; keeping it costs nothing.
        assertThat(scorer.secondsAsIs(there, atHome)).isGreaterThan(scorer.secondsAsIs(there, there));
    }

    @Test
    void withAPlanInUseALayoutChangeMustWinThePriceOfEachExpertWhoseStateMoves() {
        SplittableRandom rnd = new SplittableRandom(11);
        for (int trial = 0; trial < 30; trial++) {
            PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=4,racks=1", 16, 2, Mode.FSSDP);
            GroupTopology gt = ctx.group(0, 0);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, LayerFixtures.skewed(rnd, 8, 16));
            LayerPlacement p = LocalShareCandidates.shed(ctx, gt, scorer.demand(), rnd.nextInt(8), null);
            LayerPlacement current = NodeShards.apply(scorer, p, null);
            LayerPlacement chosen = NodeShards.apply(scorer, p, current);
            double price = IncrementalWalk.price(Math.abs(scorer.secondsAsIs(NodeShards.even(p), current)), gt.ep());
            int moved = 0;
            for (int e = 0; e < p.experts(); e++) {
                moved += chosen.shardRank(e) != current.shardRank(e) ? 1 : 0;
            }
            assertThat(scorer.secondsAsIs(chosen, current) + moved * price)
                    .as("trial %d: the choice, priced, against keeping the layout in use", trial)
                    .isLessThanOrEqualTo(scorer.secondsAsIs(current, current));
        }
    }

    private static int count(int[] ranks) {
        int n = 0;
        for (int r : ranks) {
            n += r >= 0 ? 1 : 0;
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
