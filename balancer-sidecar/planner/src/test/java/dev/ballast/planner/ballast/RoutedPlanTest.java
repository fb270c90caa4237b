package dev.ballast.planner.ballast;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.codec.PlanBinary;
import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.PlanValidator;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.Planners;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.quota.QuotaRule;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RoutedPlanTest {
    /** Two nodes of two GPUs, 8 small experts, top-2 Zipf-like counts: all-to-all-bound, as exact16 is. */
    private static PlanRequest request(Mode mode, long seed) {
        Topology topo = Topology.parse("nodes=2,gpusPerNode=2");
        MoeShape shape = MoeShape.generic("small", 2, 8, 2);
        Parallelism par = Parallelism.resolve(4, 8, null, 1);
        PlanningContext ctx = new PlanningContext(topo, par, shape, mode, 2, 50);
        ModelLoads loads = new ModelLoads(2, 1, 4, 8);
        SplittableRandom r = new SplittableRandom(seed);
        for (int l = 0; l < 2; l++) {
            long[] c = loads.counts(l, 0);
            for (int s = 0; s < 4; s++) {
                for (int e = 0; e < 8; e++) {
                    c[s * 8 + e] = (long) (20_000 / Math.pow(1 + (e + s * l) % 8, 1.2)) + r.nextInt(500);
                }
            }
        }
        return new PlanRequest(ctx, loads, null, new PlanVersion(0, 1), 0);
    }

    private static double seconds(PlanningContext c, Plan p, ModelLoads loads, int l) {
        CostModel cost = c.newCostModel();
        GroupTopology gt = c.groupOfLayer(l, 0);
        LayerPlacement q = p.placement(l, 0);
        return cost.layer(gt, q, QuotaRule.apply(gt, q, loads.counts(l, 0), null), null, null).totalSec();
    }

    @Test
    void routedPlansCarryTheirSplitWhereItIsFasterAndAreValidAndDeterministic() {
        PlanRequest r = request(Mode.REPLICATE, 1);
        PlanningContext c = r.context();
        Plan routed = Planners.byName("ballast-routed").plan(r);
        Plan scratch = Planners.byName("ballast-scratch").plan(r);
        assertThat(routed.planner()).isEqualTo("ballast-routed");
        PlanValidator.validate(routed, c.slotsPerGpu());
        assertThat(routed.hasRoutes()).isTrue();
        for (int l = 0; l < 2; l++) {
            double withSplit = seconds(c, routed, r.predicted(), l);
            double rule = seconds(c, scratch, r.predicted(), l);
            assertThat(withSplit).as("layer " + l).isLessThanOrEqualTo(rule);
            if (routed.placement(l, 0).hasRoutes()) {
                assertThat(withSplit).as("layer " + l + " carries a split only where it is faster").isLessThan(rule);
            } else {
                assertThat(routed.placement(l, 0)).isEqualTo(scratch.placement(l, 0));
            }
        }
        assertThat(PlanBinary.encode(Planners.byName("ballast-routed", 2).plan(r))).isEqualTo(PlanBinary.encode(routed));
    }

    @Test
    void fssdpLayersAreNotRouted() {
        PlanRequest r = request(Mode.FSSDP, 1);
        Plan routed = Planners.byName("ballast-routed").plan(r);
        assertThat(routed.hasRoutes()).isFalse();
        Plan scratch = Planners.byName("ballast-scratch").plan(r);
        for (int l = 0; l < 2; l++) {
            assertThat(routed.placement(l, 0)).isEqualTo(scratch.placement(l, 0));
        }
    }

    @Test
    void weightsScaleEachSourcesFlowsToTheFullSumAndWeighTheNearestCopyWhereNothingWasSent() {
        GroupTopology gt = GroupTopology.ofPlaces(new int[] {0, 0, 1}, new int[] {0, 0, 0},
                Hardware.DEFAULT);
        // Expert 0 on GPUs 0, 1 and 2 (copy indices 0, 1, 2); expert 1 on GPU 1 (3); expert 2 on GPU 2 (4).
        LayerPlacement p = LayerPlacement.of(3, new int[][] {{0}, {0, 1}, {0, 2}});
        int copies = p.totalCopies();
        long[] counts = {3, 0, 0, 0, 5, 0, 0, 0, 0}; // source 0 sends 3 to expert 0; source 2 nothing to it
        double[] tokens = new double[3 * copies];
        tokens[0] = 1;
        tokens[1] = 1;
        tokens[2] = 1;
        int[] w = RoutedPlan.weights(gt, p, counts, tokens);
        // 16384 / 3 = 5461.33 each: floors 5461, and the one left goes to the first of the equal fractions.
        assertThat(new int[] {w[0], w[1], w[2]}).containsExactly(5462, 5461, 5461);
        // Source 1 and 2 sent expert 0 nothing: the nearest copy takes all (GPU 1's own; for GPU 2 its own too).
        assertThat(new int[] {w[copies], w[copies + 1], w[copies + 2]}).containsExactly(0, 16384, 0);
        assertThat(new int[] {w[2 * copies], w[2 * copies + 1], w[2 * copies + 2]}).containsExactly(0, 0, 16384);
        assertThat(w[3]).isZero();
        assertThat(p.withRoutes(w).hasRoutes()).isTrue();
    }

    @Test
    void routedPlansArePlannedFromScratch() {
        assertThatThrownBy(() -> new BallastPlanner(true, 1, true, true))
                .hasMessageContaining("routed plans are planned from scratch");
    }
}
