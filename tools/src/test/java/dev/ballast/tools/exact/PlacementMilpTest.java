package dev.ballast.tools.exact;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.Planner;
import dev.ballast.planner.planners.Planners;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.planners.Routing;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class PlacementMilpTest {
    private static final long LIMIT_MS = 20_000;
    /** Two nodes of two GPUs in one rack: NVLink and network links both appear. */
    private static final GroupTopology TWO_BY_TWO = GroupTopology.ofPlaces(new int[] {0, 0, 1, 1}, new int[] {0, 0, 0, 0},
            Hardware.DEFAULT);

    @Test
    void oneSlotPerGpuMatchesTheBestOfEveryPermutationUnderTheCostModel() {
        MoeShape shape = MoeShape.generic("perm", 1, 4, 1);
        long[] counts = randomCounts(new SplittableRandom(3), 4, 4, 3000);
        CostModel cost = new CostModel(shape, Mode.REPLICATE, 50);
        // One slot per GPU and four experts: each GPU holds exactly one, the routing is forced, a master sits on its
        // only copy (a migration when that is not its home). So the optimum is the best of the 24 permutations.
        // Every routing of single copies is the same; the equal split's is scored, as it charges no quota rule work,
        // which the MILP (routing continuously) leaves out.
        double best = Double.MAX_VALUE;
        for (int[] perm : permutations(4)) {
            int[][] lists = new int[4][];
            int[] masters = new int[4];
            for (int g = 0; g < 4; g++) {
                lists[g] = new int[] {perm[g]};
                masters[perm[g]] = g;
            }
            LayerPlacement p = LayerPlacement.of(4, lists).withMasters(masters);
            best = Math.min(best, cost.layer(TWO_BY_TWO, p, Routing.EQUAL_SPLIT.route(TWO_BY_TWO, p, counts), null, null).totalSec());
        }
        ExactSolution free = PlacementMilp.solve(new LayerProblem(TWO_BY_TWO, counts, shape, Mode.REPLICATE, 1, 50, Masters.FREE), LIMIT_MS);
        assertThat(free.optimal()).isTrue();
        assertThat(free.incumbentSec()).isCloseTo(best, within(best * 1e-7));
        LayerPlacement found = free.placement();
        assertThat(cost.layer(TWO_BY_TWO, found, Routing.EQUAL_SPLIT.route(TWO_BY_TWO, found, counts), null, null).totalSec())
                .isCloseTo(best, within(best * 1e-7));

        ExactSolution home = PlacementMilp.solve(new LayerProblem(TWO_BY_TWO, counts, shape, Mode.REPLICATE, 1, 50, Masters.HOME), LIMIT_MS);
        LayerPlacement staticP = LayerPlacement.staticLayout(4, 4);
        double staticSec = cost.layer(TWO_BY_TWO, staticP, Routing.EQUAL_SPLIT.route(TWO_BY_TWO, staticP, counts), null, null).totalSec();
        assertThat(home.placement()).isEqualTo(staticP);
        assertThat(home.incumbentSec()).isCloseTo(staticSec, within(staticSec * 1e-7));
    }

    @Test
    void replicatesTheOnlyLoadedExpertSoEachGpuComputesTheMean() {
        // Both GPUs of one node send 1,000 tokens to expert 0 and none to expert 1. A replica of expert 0 on GPU 1
        // lets each GPU compute its own 1,000 tokens with no all-to-all; its refresh (12.6 MB over NVLink, 28 µs)
        // hides under the 64 µs of compute. Nothing computes less than the mean, so that is the optimum.
        GroupTopology node = GroupTopology.ofPlaces(new int[] {0, 0}, new int[] {0, 0}, Hardware.DEFAULT);
        MoeShape shape = MoeShape.generic("hand", 1, 2, 1);
        long[] counts = {1000, 0, 1000, 0};
        ExactSolution s = PlacementMilp.solve(new LayerProblem(node, counts, shape, Mode.REPLICATE, 2, 50, Masters.HOME), LIMIT_MS);
        double compute = new CostModel(shape, Mode.REPLICATE).computeSeconds(1000, Hardware.DEFAULT);
        assertThat(s.optimal()).isTrue();
        assertThat(s.incumbentSec()).isCloseTo(compute, within(compute * 1e-7));
        assertThat(s.placement().copies(0)).isEqualTo(2);
    }

    @Test
    void boundBelowOptimumBelowEveryPlanOnSmallInstances() {
        SplittableRandom rnd = new SplittableRandom(17);
        Topology topo = Topology.parse("nodes=2,gpusPerNode=2");
        for (int round = 0; round < 3; round++) {
            int experts = 4;
            int topK = 1 + round % 2;
            MoeShape shape = MoeShape.generic("small" + round, 1, experts, topK);
            Parallelism par = Parallelism.resolve(4, experts, null, 1);
            for (Mode mode : Mode.values()) {
                PlanningContext ctx = new PlanningContext(topo, par, shape, mode, 1, 50);
                ModelLoads loads = new ModelLoads(1, 1, 4, experts);
                System.arraycopy(randomCounts(rnd, 4, experts, 4000L * topK), 0, loads.counts(0, 0), 0, 4 * experts);
                long[] counts = loads.counts(0, 0);
                GroupTopology gt = ctx.group(0, 0);
                CostModel cost = ctx.newCostModel();
                String what = "round " + round + " " + mode;
                ExactSolution free = PlacementMilp.solve(new LayerProblem(gt, counts, shape, mode, ctx.slotsPerGpu(), 50, Masters.FREE), LIMIT_MS);
                assertThat(free.optimal()).as(what).isTrue();
                double opt = free.incumbentSec();
                double tol = opt * 1e-7;
                assertThat(cost.lowerBound(gt, counts, ctx.slotsPerGpu())).as(what + ": closed-form bound").isLessThanOrEqualTo(opt + tol);
                for (String name : new String[] {"ballast", "eplb", "static"}) {
                    Planner planner = Planners.byName(name);
                    LayerPlacement p = planner.plan(new PlanRequest(ctx, loads, null, new PlanVersion(0, 1), 0)).placement(0, 0);
                    double sec = cost.layer(gt, p, planner.routing().route(gt, p, counts), null, null).totalSec();
                    assertThat(sec).as(what + ": " + name).isGreaterThanOrEqualTo(opt - tol);
                }
                LayerPlacement found = free.placement();
                assertThat(cost.layer(gt, found, Routing.QUOTA_RULE.route(gt, found, counts), null, null).totalSec())
                        .as(what + ": the optimum's placement routed by the quota rule").isGreaterThanOrEqualTo(opt - tol);
                ExactSolution home = PlacementMilp.solve(new LayerProblem(gt, counts, shape, mode, ctx.slotsPerGpu(), 50, Masters.HOME), LIMIT_MS);
                assertThat(home.incumbentSec()).as(what + ": masters at home, a restriction").isGreaterThanOrEqualTo(opt - tol);
            }
        }
    }

    private static long[] randomCounts(SplittableRandom rnd, int ep, int experts, long perSource) {
        long[] c = new long[ep * experts];
        for (int s = 0; s < ep; s++) {
            double[] w = new double[experts];
            double sum = 0;
            for (int e = 0; e < experts; e++) {
                w[e] = Math.pow(1 + rnd.nextInt(experts), -1.2) * (0.5 + rnd.nextDouble());
                sum += w[e];
            }
            for (int e = 0; e < experts; e++) {
                c[s * experts + e] = Math.round(perSource * w[e] / sum);
            }
        }
        return c;
    }

    private static java.util.List<int[]> permutations(int n) {
        java.util.List<int[]> out = new java.util.ArrayList<>();
        permute(new int[n], new boolean[n], 0, out);
        return out;
    }

    private static void permute(int[] cur, boolean[] used, int i, java.util.List<int[]> out) {
        if (i == cur.length) {
            out.add(cur.clone());
            return;
        }
        for (int v = 0; v < cur.length; v++) {
            if (!used[v]) {
                used[v] = true;
                cur[i] = v;
                permute(cur, used, i + 1, out);
                used[v] = false;
            }
        }
    }
}
