package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** The incremental planner moves copies only when the predicted gain over the interval beats their cost and price. */
class IncrementalWalkTest {

    @Test
    void everyIncrementalChangePaysForItsCopiesAndPrice() {
        SplittableRandom r = new SplittableRandom(3);
        int experts = 48;
        PlanningContext ctx = LayerFixtures.context("nodes=4,gpusPerNode=4,racks=2", experts, 2, Mode.REPLICATE);
        GroupTopology gt = ctx.group(0, 0);
        int ep = gt.ep();
        LayerPlacement staticP = LayerPlacement.staticLayout(ep, experts);
        BallastPlanner incremental = new BallastPlanner(true);
        int changed = 0;
        int kept = 0;
        for (int trial = 0; trial < 40; trial++) {
            long[] before = LayerFixtures.skewed(r, ep, experts);
            long[] after = trial % 2 == 0 ? before : LayerFixtures.skewed(r, ep, experts);
            LayerPlacement current = new BallastPlanner(false).placeLayer(LayerFixtures.scorer(ctx, gt, before), null, staticP);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, after);
            LayerPlacement next = incremental.placeLayer(scorer, current, staticP);
            double keep = scorer.seconds(current, current);
            if (next.equals(current)) {
                kept++;
                continue;
            }
            changed++;
            int copies = 0;
            for (int g = 0; g < next.gpus(); g++) {
                for (int i = 0; i < next.expertCount(g); i++) {
                    copies += current.holds(g, next.expertAt(g, i)) ? 0 : 1;
                }
            }
            double moved = scorer.seconds(next, current);
            assertThat(moved + copies * IncrementalWalk.price(keep, ep)).as("trial %d", trial).isLessThan(keep);
        }
        // Both branches are exercised: some re-plans move copies, some keep the plan in use.
        assertThat(changed).isGreaterThan(0);
        assertThat(kept).isGreaterThan(0);
    }

    @Test
    void withNoTargetOtherThanThePlanInUseThePlanInUseIsKept() {
        SplittableRandom r = new SplittableRandom(4);
        PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=4,racks=1", 32, 2, Mode.REPLICATE);
        GroupTopology gt = ctx.group(0, 0);
        LayerScorer scorer = LayerFixtures.scorer(ctx, gt, LayerFixtures.skewed(r, 8, 32));
        LayerPlacement current = LocalShareCandidates.shed(ctx, gt, scorer.demand(), 4, null);
        assertThat(IncrementalWalk.towards(scorer, current, current)).isSameAs(current);
        assertThat(IncrementalWalk.towards(scorer, current)).isSameAs(current);
    }

    /**
     * The loadbench's shift: a Zipf-like popularity order moves by one rank, so the plan in use's hottest expert cools
     * and a single-copy one becomes hottest: the walk gives it a second copy and wins most of the gain. In a small
     * layer (EP 16, 48 experts) the walk ranks its changes by exact scores, in a larger one (EP 32, 96 experts: above
     * {@link LocalFill#MAX_WORK}) by their bounds.
     */
    @ParameterizedTest
    @CsvSource({"'nodes=4,gpusPerNode=4,racks=2', 48, true", "'nodes=8,gpusPerNode=4,racks=2', 96, false"})
    void afterTheHotSetShiftsTheWalkCopiesTheNewlyHotExpert(String topology, int experts, boolean exactRanking) {
        PlanningContext ctx = LayerFixtures.context(topology, experts, 2, Mode.REPLICATE);
        GroupTopology gt = ctx.group(0, 0);
        assertThat(LocalFill.applies(gt, experts)).isEqualTo(exactRanking);
        LayerPlacement staticP = LayerPlacement.staticLayout(gt.ep(), experts);
        for (int shift = 0; shift < 8; shift++) {
            LayerFixtures.Shift sh = LayerFixtures.Shift.of(ctx, gt, experts, shift);
            LayerPlacement current = sh.current();
            LayerScorer scorer = sh.scorer();
            int hot = sh.hot();
            assertThat(current.copies(hot)).as("shift %d", shift).isEqualTo(1);
            LayerPlacement next = new BallastPlanner(true).placeLayer(scorer, current, staticP);
            double keep = scorer.seconds(current, current);
            assertThat(next.copies(hot)).as("shift %d", shift).isGreaterThan(1);
            assertThat(scorer.seconds(next, current)).as("shift %d", shift).isLessThan(0.9 * keep);
        }
    }
}
