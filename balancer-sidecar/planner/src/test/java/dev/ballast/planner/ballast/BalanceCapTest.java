package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.quota.QuotaResult;
import dev.ballast.planner.quota.QuotaRule;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The from-scratch candidate selection puts compute balance (quota rule's max/mean <= BALANCE_CAP) first among
 * candidates no slower than static. Fixture shaped like the OLMoE case: 64 experts on 8 nodes x 8 GPUs, each node's
 * tokens from one of five "domains" with its own skewed expert preferences, so locality replicas pull load unevenly.
 */
class BalanceCapTest {

    private static long[] domainCounts(SplittableRandom r, int ep, int experts, int domains, long perGpu) {
        double[][] w = new double[domains][experts];
        for (int d = 0; d < domains; d++) {
            for (int e = 0; e < experts; e++) {
                w[d][e] = Math.pow(1 + r.nextInt(experts), -0.9);
            }
        }
        long[] c = new long[ep * experts];
        for (int g = 0; g < ep; g++) {
            double[] x = w[g * domains / ep];
            double sum = 0;
            for (double v : x) {
                sum += v;
            }
            for (int e = 0; e < experts; e++) {
                c[g * experts + e] = Math.round(perGpu * x[e] / sum);
            }
        }
        return c;
    }

    private static double imbalance(QuotaResult q) {
        long max = 0;
        long sum = 0;
        for (int g = 0; g < q.gpus(); g++) {
            max = Math.max(max, q.gpuLoad(g));
            sum += q.gpuLoad(g);
        }
        return max * (double) q.gpus() / sum;
    }

    @Test
    void scratchPlansMeetTheCapAndToppingUpIsWhatGetsThem() {
        Topology topo = Topology.parse("nodes=8,gpusPerNode=8,racks=2");
        int experts = 64;
        MoeShape shape = MoeShape.forModel("olmoe-1b-7b", 1, experts, 8);
        Parallelism par = Parallelism.resolve(topo.gpus(), experts, null, 1);
        PlanningContext ctx = new PlanningContext(topo, par, shape, Mode.REPLICATE, 2, 50);
        GroupTopology gt = ctx.group(0, 0);
        LayerPlacement staticP = LayerPlacement.staticLayout(par.ep(), experts);
        BallastPlanner planner = new BallastPlanner(false);
        int toppedUp = 0;
        for (int seed = 1; seed <= 6; seed++) {
            long[] counts = domainCounts(new SplittableRandom(seed), par.ep(), experts, 5, 65536);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, counts);
            LayerPlacement local = LocalShareCandidates.shed(ctx, gt, scorer.demand(), ctx.redundantSlots() * par.ep() / 2, null);
            QuotaResult before = QuotaRule.apply(gt, local, counts, null);
            if (imbalance(before) > CandidateSelector.BALANCE_CAP) {
                long max = 0;
                for (int g = 0; g < par.ep(); g++) {
                    max = Math.max(max, before.gpuLoad(g));
                }
                LayerPlacement topped = TopUp.topUp(scorer, local, max);
                double after = imbalance(QuotaRule.apply(gt, topped, counts, null));
                assertThat(after).as("seed %d: topping up lowers max/mean", seed).isLessThan(imbalance(before));
                toppedUp += after <= CandidateSelector.BALANCE_CAP ? 1 : 0;
            }
            LayerPlacement plan = planner.placeLayer(scorer, null, staticP);
            assertThat(imbalance(QuotaRule.apply(gt, plan, counts, null))).as("seed %d", seed)
                    .isLessThanOrEqualTo(CandidateSelector.BALANCE_CAP);
            assertThat(scorer.seconds(plan, null)).isLessThanOrEqualTo(scorer.seconds(staticP, null));
        }
        assertThat(toppedUp).as("the fixture exercises topping up").isPositive();
    }
}
