package dev.ballast.planner.ballast;

import dev.ballast.planner.Fixtures;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class LoadShedderTest {

    private static long max(SheddingState st) {
        long m = 0;
        for (int g = 0; g < st.ep(); g++) {
            m = Math.max(m, st.load(g));
        }
        return m;
    }

    @Test
    void sheddingConservesLoadNeverRaisesTheBusiestGpuAndBalancesWhenSlotsAllow() {
        SplittableRandom rnd = new SplittableRandom(1);
        for (int trial = 0; trial < 40; trial++) {
            PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=4,racks=1", 32, 1 + rnd.nextInt(3), Mode.REPLICATE);
            GroupTopology gt = ctx.group(0, 0);
            LayerDemand d = LayerDemand.of(gt, LayerFixtures.skewed(rnd, 8, 32), 32);
            SheddingState st = SheddingState.fresh(8, 32, ctx.redundantSlots(), d);
            long before = max(st);
            LoadShedder shedder = new LoadShedder(gt, st, d, TrafficBytes.of(ctx));
            shedder.run();
            long sum = 0;
            for (int g = 0; g < 8; g++) {
                sum += st.load(g);
                assertThat(st.replicaCount(g)).isLessThanOrEqualTo(ctx.redundantSlots());
            }
            assertThat(sum).isEqualTo(d.allTokens());
            assertThat(max(st)).as("trial %d", trial).isLessThanOrEqualTo(before);
            assertThat(shedder.target()).isEqualTo((d.allTokens() + 7) / 8);
        }
    }

    @Test
    void aHotExpertIsSplitToTheMeanAndItsReplicaGoesWhereItsTokensComeFrom() {
        // Two nodes of two GPUs; expert 3 (home GPU 1, node 0) is hot and its tokens come from node 1 (GPUs 2, 3), enough
        // to outweigh a replica's refresh bytes.
        GroupTopology gt = Fixtures.group(4, 2, 1);
        PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=2,racks=1", 8, 1, Mode.REPLICATE);
        long[] counts = new long[4 * 8];
        for (int s = 0; s < 4; s++) {
            for (int e = 0; e < 8; e++) {
                counts[s * 8 + e] = 10;
            }
        }
        counts[2 * 8 + 3] = 5000;
        counts[3 * 8 + 3] = 5000;
        LayerDemand d = LayerDemand.of(gt, counts, 8);
        SheddingState st = SheddingState.fresh(4, 8, 1, d);
        LoadShedder shedder = new LoadShedder(gt, st, d, TrafficBytes.of(ctx));
        shedder.run();
        assertThat(max(st) - shedder.target()).isLessThanOrEqualTo(shedder.target() / 1000);
        assertThat(gt.nodeIndex(st.copyGpu(3, 1))).as("the replica sits on the node sending the tokens").isEqualTo(1);
    }
}
