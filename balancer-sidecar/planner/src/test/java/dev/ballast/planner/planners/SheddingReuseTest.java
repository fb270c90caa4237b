package dev.ballast.planner.planners;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.synth.Scenarios;
import dev.ballast.planner.synth.SyntheticTrace;
import dev.ballast.planner.load.SourceMapping;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The work the from-scratch planner shares between its candidates gives the same placements as doing it afresh. */
class SheddingReuseTest {

    @Test
    void replayedLocalPicksGiveTheSamePlacementAsPickingAgain() {
        SyntheticTrace t = new SyntheticTrace(Scenarios.byName("zipf-top8"));
        Topology topo = Topology.parse("nodes=8,gpusPerNode=8,racks=2");
        MoeShape shape = MoeShape.forModel(t.header().model(), t.header().layers(), 256, 8);
        Parallelism par = Parallelism.resolve(64, 256, null, 1);
        PlanningContext ctx = new PlanningContext(topo, par, shape, Mode.REPLICATE, 2, 50);
        GroupTopology gt = ctx.group(0, 0);
        int slots = ctx.redundantSlots() * par.ep();
        int replayed = 0;
        for (int layer = 0; layer < t.header().layers(); layer++) {
            long[] counts = SourceMapping.toGpus(t.counts(5), par, 256, 8192L * 64).counts(layer, 0);
            BallastPlanner.Demand d = BallastPlanner.Demand.of(gt, counts, 256);
            BallastPlanner.LocalPicks picks = new BallastPlanner.LocalPicks(slots / 2);
            LayerPlacement half = BallastPlanner.shed(ctx, gt, d, slots / 2, picks);
            for (int limit : new int[] {slots / 2, slots / 4, slots / 8, 0}) {
                LayerPlacement viaReplay = BallastPlanner.shed(ctx, gt, d, limit, picks);
                LayerPlacement fresh = BallastPlanner.shed(ctx, gt, d, limit);
                assertThat(viaReplay).as("layer %d, %d local replicas", layer, limit).isEqualTo(fresh);
            }
            assertThat(half).isEqualTo(BallastPlanner.shed(ctx, gt, d, slots / 2));
            replayed += picks.count();
        }
        assertThat(replayed).as("the scenario opens local replicas at all").isPositive();
    }

    @Test
    void aHeapBuiltBottomUpPopsInDescendingOrder() {
        SplittableRandom r = new SplittableRandom(3);
        for (int trial = 0; trial < 50; trial++) {
            int n = r.nextInt(200);
            long[] keys = new long[n];
            LongMaxHeap heap = new LongMaxHeap(1);
            for (int i = 0; i < n; i++) {
                keys[i] = r.nextLong(1000);
                heap.add(keys[i]);
            }
            heap.heapify();
            heap.push(5000);
            assertThat(heap.pop()).isEqualTo(5000);
            Arrays.sort(keys);
            for (int i = n - 1; i >= 0; i--) {
                assertThat(heap.pop()).isEqualTo(keys[i]);
            }
            assertThat(heap.isEmpty()).isTrue();
        }
    }
}
