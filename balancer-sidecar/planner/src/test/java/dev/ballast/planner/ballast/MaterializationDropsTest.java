package dev.ballast.planner.ballast;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.MemoryBudget;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.PlanValidator;
import dev.ballast.planner.model.StaticLayout;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.planners.Routing;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * FSSDP materialization: home copies are not sacred (every GPU holds a shard of every expert), so the planner drops
 * the ones whose gathers cost more than they serve; what it predicts is exactly the cost model's score.
 */
class MaterializationDropsTest {

    /**
     * Two nodes of two GPUs, four experts, one slot: expert 0 (home GPU 0, node 0) is used only by node 1 and expert 2
     * (home GPU 2, node 1) only by node 0. Moving both is the only way to keep every token on its node; it takes a
     * replica on the other node and dropping the home copy: with this few tokens the gathers are not hidden under compute,
     * so the idle home copy's gather would cost NIC time.
     */
    @Test
    void aHomeCopyThatServesNothingLocallyIsDropped() {
        PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=2", 4, 1, Mode.FSSDP);
        long[] counts = new long[4 * 4];
        counts[2 * 4 + 0] = 2000;
        counts[3 * 4 + 0] = 2000;
        counts[0 * 4 + 1] = 2000;
        counts[1 * 4 + 1] = 2000;
        counts[0 * 4 + 2] = 2000;
        counts[1 * 4 + 2] = 2000;
        counts[2 * 4 + 3] = 2000;
        counts[3 * 4 + 3] = 2000;
        Plan plan = planOne(ctx, counts);
        LayerPlacement p = plan.placement(0, 0);
        PlanValidator.validate(plan, ctx.slotsPerGpu());
        assertThat(p.holds(0, 0)).as("expert 0 dropped from its home GPU 0: %s", p).isFalse();
        assertThat(p.holds(2, 2)).as("expert 2 dropped from its home GPU 2: %s", p).isFalse();
        assertThat(p.holds(2, 0) || p.holds(3, 0)).isTrue();
        assertThat(p.holds(0, 2) || p.holds(1, 2)).isTrue();
        // Valid in fssdp mode only: replicate keeps every home's master copy.
        Plan asReplicate = new Plan(plan.version(), plan.earliestStep(), Mode.REPLICATE, plan.planner(), 4,
                ctx.parallelism(), new LayerPlacement[][] {{p}});
        assertThatThrownBy(() -> PlanValidator.validate(asReplicate, ctx.slotsPerGpu()))
                .hasMessageContaining("missing on its home GPU");

        // The drops are what made it faster: the same placement with the homes put back is predicted slower.
        GroupTopology gt = ctx.groupOfLayer(0, 0);
        int[][] lists = new int[4][];
        for (int g = 0; g < 4; g++) {
            lists[g] = p.expertsOn(g);
        }
        lists[0] = SlotChanges.replace(lists[0], -1, 0);
        lists[2] = SlotChanges.replace(lists[2], -1, 2);
        LayerPlacement withHomes = LayerPlacement.of(4, lists);
        assertThat(cost(ctx, gt, p, counts)).isLessThan(cost(ctx, gt, withHomes, counts));
    }

    @Test
    void dropsLeaveEveryExpertACopyAndNeverRaiseThePredictedTime() {
        SplittableRandom r = new SplittableRandom(11);
        int dropped = 0;
        for (int trial = 0; trial < 40; trial++) {
            PlanningContext ctx = LayerFixtures.context(trial % 2 == 0 ? "nodes=2,gpusPerNode=4" : "nodes=4,gpusPerNode=2",
                    8 + r.nextInt(17), 1 + r.nextInt(2), Mode.FSSDP);
            GroupTopology gt = ctx.groupOfLayer(0, 0);
            int ep = gt.ep();
            int experts = ctx.shape().experts();
            long[] counts = LayerFixtures.skewed(r, ep, experts);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, counts);
            LayerPlacement first = BalanceThenLocal.place(ctx, scorer.cost(), gt, scorer.demand(), null);
            LayerPlacement after = MaterializationDrops.apply(scorer, first);
            for (int e = 0; e < experts; e++) {
                assertThat(after.copies(e)).isPositive();
                for (int g = 0; g < ep; g++) {
                    assertThat(!after.holds(g, e) || first.holds(g, e)).as("drops add nothing").isTrue();
                }
            }
            assertThat(scorer.seconds(after, null)).isLessThanOrEqualTo(scorer.seconds(first, null));
            dropped += first.totalCopies() - after.totalCopies();
        }
        assertThat(dropped).as("some copies were worth dropping").isPositive();
    }

    @Test
    void replicateModeKeepsEveryCopy() {
        PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=2", 4, 1, Mode.REPLICATE);
        GroupTopology gt = ctx.groupOfLayer(0, 0);
        long[] counts = LayerFixtures.skewed(new SplittableRandom(3), 4, 4);
        LayerScorer scorer = LayerFixtures.scorer(ctx, gt, counts);
        LayerPlacement p = BalanceThenLocal.place(ctx, scorer.cost(), gt, scorer.demand(), null);
        assertThat(MaterializationDrops.apply(scorer, p)).isSameAs(p);
    }

    /**
     * Big experts against few tokens, so gathers are exposed and some home copies pay to drop: the plan the planner
     * returns is valid, deterministic, never predicted slower than static, and its prediction (the scorer's, what the
     * planner chose by) is the cost model's own score of it under the quota rule, from scratch and incremental.
     */
    @Test
    void plannerPredictsTheCostModelsScoreAndNeverLosesToStatic() {
        SplittableRandom r = new SplittableRandom(23);
        int homesDropped = 0;
        for (int trial = 0; trial < 24; trial++) {
            Topology topo = Topology.parse(trial % 2 == 0 ? "nodes=2,gpusPerNode=4" : "nodes=4,gpusPerNode=2,racks=2");
            int experts = 8 + r.nextInt(25);
            MoeShape shape = new MoeShape("big", 2, experts, 2, 0, 2048, 1024 << r.nextInt(3), 2, 2, 12, 3);
            Parallelism par = Parallelism.resolve(topo.gpus(), experts, null, 1);
            PlanningContext ctx = new PlanningContext(topo, par, shape, Mode.FSSDP, 1 + r.nextInt(2), 50);
            ModelLoads loads = new ModelLoads(2, 1, par.ep(), experts);
            for (int l = 0; l < 2; l++) {
                long[] x = loads.counts(l, 0);
                System.arraycopy(LayerFixtures.skewed(r, par.ep(), experts), 0, x, 0, x.length);
                for (int i = 0; i < x.length; i++) {
                    x[i] *= 1 + r.nextInt(40);
                }
            }
            Plan first = null;
            for (boolean incremental : new boolean[] {false, true}) {
                PlanRequest req = new PlanRequest(ctx, loads, first, new PlanVersion(1, trial), 10);
                Plan plan = new BallastPlanner(incremental).plan(req);
                assertThat(new BallastPlanner(incremental).plan(req)).isEqualTo(plan);
                PlanValidator.validate(plan, ctx.slotsPerGpu());
                LayerPlacement stat = LayerPlacement.staticLayout(par.ep(), experts);
                CostModel cost = ctx.newCostModel();
                for (int l = 0; l < 2; l++) {
                    GroupTopology gt = ctx.groupOfLayer(l, 0);
                    long[] counts = loads.counts(l, 0);
                    LayerPlacement p = plan.placement(l, 0);
                    var layerCost = cost.layer(gt, p, Routing.QUOTA_RULE.route(gt, p, counts), null);
                    double scored = layerCost.totalSec();
                    // Within the bytes the memory budget grants: shards of every expert plus a full slot count of copies.
                    assertThat(layerCost.peakMemoryBytes()).isLessThanOrEqualTo(
                            MemoryBudget.layerBytes(shape, Mode.FSSDP, par.ep(), 0, ctx.slotsPerGpu()));
                    double predicted = LayerFixtures.scorer(ctx, gt, counts).seconds(p, null) / ctx.replanInterval();
                    assertThat(predicted).isCloseTo(scored, org.assertj.core.data.Offset.offset(scored * 1e-12));
                    double ts = cost.layer(gt, stat, Routing.QUOTA_RULE.route(gt, stat, counts), null).totalSec();
                    assertThat(scored).isLessThanOrEqualTo(ts * (1 + 1e-12));
                    for (int e = 0; e < experts; e++) {
                        homesDropped += p.holds(StaticLayout.home(e, par.ep(), experts), e) ? 0 : 1;
                    }
                }
                first = plan;
            }
        }
        assertThat(homesDropped).as("home copies dropped over the trials").isPositive();
    }

    private static Plan planOne(PlanningContext ctx, long[] counts) {
        ModelLoads loads = new ModelLoads(1, 1, ctx.parallelism().ep(), ctx.shape().experts());
        System.arraycopy(counts, 0, loads.counts(0, 0), 0, counts.length);
        return new BallastPlanner(false).plan(new PlanRequest(ctx, loads, null, new PlanVersion(0, 1), 0));
    }

    private static double cost(PlanningContext ctx, GroupTopology gt, LayerPlacement p, long[] counts) {
        return ctx.newCostModel().layer(gt, p, Routing.QUOTA_RULE.route(gt, p, counts), null).totalSec();
    }
}
