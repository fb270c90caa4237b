package dev.ballast.planner.ballast;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.quota.QuotaResult;
import dev.ballast.planner.quota.QuotaRule;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The scorer's predictions are the cost model over the quota rule's routing, times the re-plan interval. */
class LayerScorerTest {

    @Test
    void scoresAreTheRulesCostOverTheIntervalAndTheBoundsHold() {
        SplittableRandom rnd = new SplittableRandom(1);
        for (int trial = 0; trial < 30; trial++) {
            Mode mode = trial % 3 == 0 ? Mode.FSSDP : Mode.REPLICATE;
            PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=4,racks=2", 24, 2, mode);
            GroupTopology gt = ctx.group(0, 0);
            long[] counts = LayerFixtures.skewed(rnd, 8, 24);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, counts);
            LayerPlacement staticP = LayerPlacement.staticLayout(8, 24);
            LayerPlacement p = LocalShareCandidates.shed(ctx, gt, scorer.demand(), rnd.nextInt(8), null);
            CostModel cost = ctx.newCostModel();
            QuotaResult rule = QuotaRule.apply(gt, p, counts, null);
            // In fssdp mode a score weighs the node shards the placement would get; secondsAsIs the placement as it is.
            LayerPlacement shaped = mode == Mode.FSSDP ? NodeShards.homeNodeOnly(scorer, p) : p;
            double want = cost.layer(gt, shaped, rule, null).totalSec() * ctx.replanInterval();
            assertThat(scorer.seconds(p, null)).as("trial %d", trial).isCloseTo(want, within(want * 1e-12));
            double asIs = cost.layer(gt, p, rule, null).totalSec() * ctx.replanInterval();
            assertThat(scorer.secondsAsIs(p, null)).isCloseTo(asIs, within(asIs * 1e-12));
            long max = scorer.maxLoad(p);
            assertThat(max).isEqualTo(cost.layer(gt, p, rule, null).maxTokens());
            assertThat(scorer.upperBound(p, max)).isGreaterThanOrEqualTo(scorer.seconds(p, null));
            // Charging the one-off copies from static costs at least as much as the steady state.
            assertThat(scorer.seconds(p, staticP)).isGreaterThanOrEqualTo(scorer.seconds(p, null));
            long staticMax = scorer.maxLoad(staticP);
            assertThat(scorer.staticSeconds(staticP, staticMax)).isCloseTo(scorer.secondsAsIs(staticP, null), within(1e-12));
            assertThat(scorer.staticFloor(staticMax)).isLessThanOrEqualTo(scorer.staticSeconds(staticP, staticMax));
            assertThat(scorer.imbalance(max)).isCloseTo(max * 8.0 / scorer.demand().allTokens(), within(1e-12));
        }
    }
}
