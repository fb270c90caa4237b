package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class CandidateSelectorTest {

    /**
     * The heaviest balanced load, found by bisection from a bracket around the cap's load, is the one a bisection of the
     * whole range finds: the largest load whose imbalance is within the cap (imbalance never falls as the load grows).
     */
    @Test
    void theBalancedLoadIsTheLargestLoadWithinTheCap() {
        SplittableRandom rnd = new SplittableRandom(3);
        for (int trial = 0; trial < 300; trial++) {
            String topo = trial % 2 == 0 ? "nodes=2,gpusPerNode=4,racks=1" : "nodes=3,gpusPerNode=3,racks=1";
            PlanningContext ctx = LayerFixtures.context(topo, 36, 2, Mode.REPLICATE);
            GroupTopology gt = ctx.group(0, 0);
            long[] counts = LayerFixtures.skewed(rnd, gt.ep(), 36);
            int scale = trial % 3 == 0 ? 1 : 1 + rnd.nextInt(1 << 20);
            for (int i = 0; i < counts.length; i++) {
                counts[i] = trial % 7 == 0 ? rnd.nextInt(2) : counts[i] * scale;
            }
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, counts);
            long lo = 0;
            long hi = Long.MAX_VALUE;
            if (scorer.imbalance(hi) <= CandidateSelector.BALANCE_CAP) {
                lo = Long.MAX_VALUE;
            } else {
                while (hi - lo > 1) {
                    long mid = lo + (hi - lo) / 2;
                    if (scorer.imbalance(mid) <= CandidateSelector.BALANCE_CAP) {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
            }
            assertThat(CandidateSelector.balancedLoad(scorer)).as("trial %d", trial).isEqualTo(lo);
        }
    }

    @Test
    void aPickIsBalancedAndNeverPredictedSlowerThanStatic() {
        SplittableRandom rnd = new SplittableRandom(1);
        int picked = 0;
        for (int trial = 0; trial < 30; trial++) {
            PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=4,racks=1", 32, 2, Mode.REPLICATE);
            GroupTopology gt = ctx.group(0, 0);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, LayerFixtures.skewed(rnd, 8, 32));
            LayerPlacement staticP = LayerPlacement.staticLayout(8, 32);
            CandidateSelector selector = new CandidateSelector(scorer, staticP);
            CandidateSelector.Candidate none = selector.score(LocalShareCandidates.shed(ctx, gt, scorer.demand(), 0, null));
            CandidateSelector.Candidate local = selector.score(LocalShareCandidates.shed(ctx, gt, scorer.demand(), 8, null));
            LayerPlacement pick = selector.pick(none, local);
            if (pick != null) {
                picked++;
                assertThat(scorer.imbalance(scorer.maxLoad(pick))).isLessThanOrEqualTo(CandidateSelector.BALANCE_CAP);
                assertThat(scorer.seconds(pick, null)).as("trial %d", trial)
                        .isLessThanOrEqualTo(scorer.seconds(staticP, null) * (1 + 1e-12));
            }
            // The fallback is static or something predicted faster than it.
            LayerPlacement fallback = selector.fallback();
            assertThat(fallback.equals(staticP) || scorer.seconds(fallback, null) < scorer.seconds(staticP, null)).isTrue();
        }
        assertThat(picked).isPositive();
    }

    /**
     * What lets {@link CandidateSelector#score} settle a candidate at a load above its busiest: balance is a load at most
     * {@code balancedLoad}, and the time bound at a lower load is never above the bound at a higher one by the margin.
     */
    @Test
    void balanceIsALoadLimitAndTheBoundRisesWithTheLoadWithinTheMargin() {
        SplittableRandom rnd = new SplittableRandom(2);
        for (int trial = 0; trial < 30; trial++) {
            PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=4,racks=2", 32, 2, Mode.REPLICATE);
            GroupTopology gt = ctx.group(0, 0);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, LayerFixtures.skewed(rnd, 8, 32));
            long limit = CandidateSelector.balancedLoad(scorer);
            assertThat(scorer.imbalance(limit)).isLessThanOrEqualTo(CandidateSelector.BALANCE_CAP);
            assertThat(scorer.imbalance(limit + 1)).isGreaterThan(CandidateSelector.BALANCE_CAP);
            LayerPlacement p = LocalShareCandidates.shed(ctx, gt, scorer.demand(), rnd.nextInt(9), null);
            long max = scorer.maxLoad(p);
            double previous = scorer.upperBound(p, max);
            for (long load = max + 1; load < max + 200; load += 1 + rnd.nextInt(3)) {
                double bound = scorer.upperBound(p, load);
                assertThat(previous).as("trial %d load %d", trial, load)
                        .isLessThanOrEqualTo(bound * (1 + CandidateSelector.SETTLED_MARGIN));
                previous = bound;
            }
            assertThat(scorer.upperBound(p, max)).isGreaterThanOrEqualTo(scorer.seconds(p, null));
        }
    }

    @Test
    void staticIsNeverPickedButIsTheFallbackWhenItIsBalanced() {
        PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=4,racks=1", 8, 2, Mode.REPLICATE);
        GroupTopology gt = ctx.group(0, 0);
        long[] even = new long[64];
        java.util.Arrays.fill(even, 100);
        LayerScorer scorer = LayerFixtures.scorer(ctx, gt, even);
        LayerPlacement staticP = LayerPlacement.staticLayout(8, 8);
        CandidateSelector selector = new CandidateSelector(scorer, staticP);
        CandidateSelector.Candidate s = selector.score(staticP);
        assertThat(s.balanced()).isTrue();
        assertThat(s.seconds()).isEqualTo(scorer.seconds(staticP, null));
        assertThat(selector.pick(s)).isNull();
        assertThat(selector.fallback()).isEqualTo(staticP);
    }
}
