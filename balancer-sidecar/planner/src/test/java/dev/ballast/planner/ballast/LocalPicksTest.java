package dev.ballast.planner.ballast;

import dev.ballast.planner.Fixtures;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** Replaying recorded local picks gives the same placements as picking afresh. */
class LocalPicksTest {

    @Test
    void replayedLocalPicksGiveTheSamePlacementAsPickingAgain() {
        int layers = 16;
        SplittableRandom r = new SplittableRandom(8);
        Topology topo = Topology.parse("nodes=8,gpusPerNode=8,racks=2");
        MoeShape shape = MoeShape.forModel("olmoe", layers, 256, 8);
        Parallelism par = Parallelism.resolve(64, 256, null, 1);
        PlanningContext ctx = new PlanningContext(topo, par, shape, Mode.REPLICATE, 2, 50);
        GroupTopology gt = ctx.group(0, 0);
        int slots = ctx.redundantSlots() * par.ep();
        int replayed = 0;
        for (int layer = 0; layer < layers; layer++) {
            long[] counts = Fixtures.counts(r, par.ep(), 256, 8192 * 8);
            LayerDemand d = LayerDemand.of(gt, counts, 256);
            LocalPicks picks = new LocalPicks(slots / 2);
            LayerPlacement half = LocalShareCandidates.shed(ctx, gt, d, slots / 2, picks);
            for (int limit : new int[] {slots / 2, slots / 4, slots / 8, 0}) {
                LayerPlacement viaReplay = LocalShareCandidates.shed(ctx, gt, d, limit, picks);
                LayerPlacement fresh = LocalShareCandidates.shed(ctx, gt, d, limit, null);
                assertThat(viaReplay).as("layer %d, %d local replicas", layer, limit).isEqualTo(fresh);
            }
            assertThat(half).isEqualTo(LocalShareCandidates.shed(ctx, gt, d, slots / 2, null));
            replayed += picks.count();
        }
        assertThat(replayed).as("the scenario opens local replicas at all").isPositive();
    }
}
