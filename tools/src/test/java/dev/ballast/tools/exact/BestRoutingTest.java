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
import dev.ballast.planner.model.StaticLayout;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.Planners;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.planners.Routing;
import dev.ballast.planner.ballast.RoutedSearch;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BestRoutingTest {
    private static final long LIMIT_MS = 20_000;

    @Test
    void bestRoutingLiesBetweenTheOptimumAndTheQuotaRuleAndFindsTheOptimumOnItsPlacement() {
        SplittableRandom rnd = new SplittableRandom(5);
        Topology topo = Topology.parse("nodes=2,gpusPerNode=2");
        for (int round = 0; round < 3; round++) {
            int experts = 4;
            MoeShape shape = MoeShape.generic("small" + round, 1, experts, 1 + round % 2);
            Parallelism par = Parallelism.resolve(4, experts, null, 1);
            PlanningContext ctx = new PlanningContext(topo, par, shape, Mode.REPLICATE, 1, 50);
            ModelLoads loads = new ModelLoads(1, 1, 4, experts);
            long[] counts = loads.counts(0, 0);
            for (int i = 0; i < counts.length; i++) {
                counts[i] = 200 + rnd.nextInt(4000);
            }
            GroupTopology gt = ctx.group(0, 0);
            CostModel cost = ctx.newCostModel();
            LayerProblem problem = new LayerProblem(gt, counts, shape, Mode.REPLICATE, ctx.slotsPerGpu(), 50, Masters.HOME);
            ExactSolution home = PlacementMilp.solve(problem, LIMIT_MS);
            assertThat(home.optimal()).isTrue();
            double opt = home.incumbentSec();
            // The MILP counts the busiest GPU's tokens in integers, the LP continuously: at most one token apart.
            double oneToken = cost.computeSeconds(1, Hardware.DEFAULT);
            String what = "round " + round;
            LayerPlacement ballast = Planners.byName("ballast")
                    .plan(new PlanRequest(ctx, loads, null, new PlanVersion(0, 1), 0)).placement(0, 0);
            try (BestRouting best = new BestRouting(problem)) {
                assertThat(best.seconds(home.placement())).as(what + ": the optimum's own placement")
                        .isBetween(opt - oneToken - opt * 1e-7, opt + opt * 1e-7);
                for (LayerPlacement p : new LayerPlacement[] {ballast, LayerPlacement.staticLayout(4, experts)}) {
                    double routed = best.seconds(p);
                    double rule = cost.layer(gt, p, Routing.QUOTA_RULE.route(gt, p, counts), null, null).totalSec();
                    assertThat(routed).as(what + ": " + p).isGreaterThanOrEqualTo(opt - oneToken - opt * 1e-7)
                            .isLessThanOrEqualTo(rule + rule * 1e-7);
                }
                RoutedSearch.Result r = RoutedSearch.descend(best::seconds, LayerPlacement.staticLayout(4, experts), ctx.slotsPerGpu());
                assertThat(r.seconds()).as(what + ": descent").isLessThanOrEqualTo(best.seconds(LayerPlacement.staticLayout(4, experts)))
                        .isGreaterThanOrEqualTo(opt - oneToken - opt * 1e-7);
                assertThat(RoutedSearch.descend(best::seconds, LayerPlacement.staticLayout(4, experts), ctx.slotsPerGpu()))
                        .as(what + ": deterministic").isEqualTo(r);
                RoutedSearch.Result k = RoutedSearch.kicked(best::seconds, r, ctx.slotsPerGpu(), 4, 7);
                assertThat(k.seconds()).as(what + ": kicked").isLessThanOrEqualTo(r.seconds())
                        .isGreaterThanOrEqualTo(opt - oneToken - opt * 1e-7);
                assertThat(k.solves()).isGreaterThan(r.solves());
                assertThat(RoutedSearch.kicked(best::seconds, r, ctx.slotsPerGpu(), 4, 7)).as(what + ": kicked, deterministic")
                        .isEqualTo(k);
                for (int g = 0; g < 4; g++) {
                    assertThat(r.placement().expertsOn(g).length).isLessThanOrEqualTo(ctx.slotsPerGpu());
                }
                for (int e = 0; e < experts; e++) {
                    assertThat(r.placement().holds(StaticLayout.home(e, 4, experts), e)).as(what + ": home of " + e).isTrue();
                }
            }
        }
    }

    @Test
    void fssdpIsRefused() {
        GroupTopology gt = GroupTopology.ofPlaces(new int[] {0, 0}, new int[] {0, 0}, Hardware.DEFAULT);
        LayerProblem p = new LayerProblem(gt, new long[4], MoeShape.generic("f", 1, 2, 1), Mode.FSSDP, 2, 50, Masters.HOME);
        assertThatThrownBy(() -> new BestRouting(p)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replicate mode only");
    }
}
