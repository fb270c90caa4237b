package dev.ballast.planner.ballast;

import dev.ballast.planner.Fixtures;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.StaticLayout;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class RealignmentTest {

    /** Copies of e outside their home on node n of {@code p}. */
    private static int replicasOnNode(GroupTopology gt, LayerPlacement p, int e, int n) {
        int k = 0;
        for (int g = 0; g < p.gpus(); g++) {
            k += gt.nodeIndex(g) == n && p.holds(g, e) && StaticLayout.home(e, p.gpus(), p.experts()) != g ? 1 : 0;
        }
        return k;
    }

    @Test
    void eachNodeKeepsTheTargetsReplicas() {
        SplittableRandom rnd = new SplittableRandom(1);
        int slots = 2;
        PlanningContext ctx = LayerFixtures.context("nodes=4,gpusPerNode=2,racks=1", 24, slots, Mode.REPLICATE);
        GroupTopology gt = ctx.group(0, 0);
        for (int trial = 0; trial < 50; trial++) {
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, LayerFixtures.skewed(rnd, 8, 24));
            LayerPlacement current = Fixtures.randomPlacement(rnd, 8, 24, slots);
            LayerPlacement target = Fixtures.randomPlacement(rnd, 8, 24, slots);
            LayerPlacement aligned = Realignment.align(scorer, target, current, slots);
            LayerFixtures.assertValid(aligned, slots);
            for (int e = 0; e < 24; e++) {
                for (int n = 0; n < gt.nodeCount(); n++) {
                    assertThat(replicasOnNode(gt, aligned, e, n)).as("trial %d expert %d node %d", trial, e, n)
                            .isEqualTo(replicasOnNode(gt, target, e, n));
                }
            }
            // Re-aligned to itself, a placement keeps every replica where it is.
            assertThat(Realignment.align(scorer, target, target, slots)).isEqualTo(target);
        }
    }

    /**
     * One node of four GPUs (experts 2g and 2g + 1 at home on GPU g), experts 2 and 4 hot. The target balances them with
     * a replica of 2 on GPU 0 and one of 4 on GPU 3; the plan in use holds both replicas on GPU 0. Keeping both there
     * (what re-alignment did before it weighed loads) would leave GPU 3 with its homes alone and the other three above
     * the target's busiest; the re-aligned plan keeps 2 on GPU 0 and puts 4 on GPU 3, as balanced as the target.
     */
    @Test
    void keepsAReplicaInPlaceOnlyWhereTheTargetsBalanceHolds() {
        int experts = 8;
        int slots = 2;
        PlanningContext ctx = LayerFixtures.context("nodes=1,gpusPerNode=4,racks=1", experts, slots, Mode.REPLICATE);
        GroupTopology gt = ctx.group(0, 0);
        long[] counts = new long[4 * experts];
        for (int s = 0; s < 4; s++) {
            for (int e = 0; e < experts; e++) {
                counts[s * experts + e] = e == 2 || e == 4 ? 100 : 25;
            }
        }
        LayerScorer scorer = LayerFixtures.scorer(ctx, gt, counts);
        LayerPlacement target = LayerPlacement.of(experts, new int[][] {{0, 1, 2}, {2, 3}, {4, 5}, {4, 6, 7}});
        LayerPlacement current = LayerPlacement.of(experts, new int[][] {{0, 1, 2, 4}, {2, 3}, {4, 5}, {6, 7}});
        LayerPlacement aligned = Realignment.align(scorer, target, current, slots);
        assertThat(aligned).isEqualTo(target);
        assertThat(scorer.maxLoad(aligned)).isLessThan(scorer.maxLoad(current));
    }
}
