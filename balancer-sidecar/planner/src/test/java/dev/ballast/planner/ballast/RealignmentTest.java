package dev.ballast.planner.ballast;

import dev.ballast.planner.Fixtures;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.StaticLayout;
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
    void eachNodeKeepsTheTargetsReplicasOnTheGpusThatAlreadyHoldThem() {
        SplittableRandom rnd = new SplittableRandom(1);
        GroupTopology gt = Fixtures.group(8, 4, 1);
        int slots = 2;
        for (int trial = 0; trial < 50; trial++) {
            LayerPlacement current = Fixtures.randomPlacement(rnd, 8, 24, slots);
            LayerPlacement target = Fixtures.randomPlacement(rnd, 8, 24, slots);
            LayerPlacement aligned = Realignment.align(gt, target, current, slots);
            LayerFixtures.assertValid(aligned, slots);
            for (int e = 0; e < 24; e++) {
                for (int n = 0; n < gt.nodeCount(); n++) {
                    assertThat(replicasOnNode(gt, aligned, e, n)).as("trial %d expert %d node %d", trial, e, n)
                            .isEqualTo(replicasOnNode(gt, target, e, n));
                }
            }
            // A replica the target wants on a node where current already has it on a GPU with room stays on that GPU.
            assertThat(Realignment.align(gt, current, current, slots)).isEqualTo(current);
        }
    }
}
