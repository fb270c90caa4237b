package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bound the incremental walk ranks slot changes by is never above the exact score, often reaches it, and after a
 * hot-set shift ranks the change that relieves the new bottleneck first.
 */
class ChangeBoundTest {

    @Test
    void boundIsAtMostTheExactScoreOfEveryChangeAndProvesSomeChangesCannotGain() {
        SplittableRandom r = new SplittableRandom(11);
        int experts = 48;
        PlanningContext ctx = LayerFixtures.context("nodes=4,gpusPerNode=4,racks=2", experts, 2, Mode.REPLICATE);
        GroupTopology gt = ctx.group(0, 0);
        LayerPlacement staticP = LayerPlacement.staticLayout(gt.ep(), experts);
        int changes = 0;
        int cannotGain = 0;
        for (int trial = 0; trial < 30; trial++) {
            long[] before = LayerFixtures.skewed(r, gt.ep(), experts);
            long[] after = LayerFixtures.skewed(r, gt.ep(), experts);
            LayerPlacement current = new BallastPlanner(false).placeLayer(LayerFixtures.scorer(ctx, gt, before), null, staticP);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, after);
            LayerPlacement best = new BallastPlanner(false).placeLayer(scorer, null, staticP);
            ChangeBound bound = new ChangeBound(scorer, current);
            double keep = scorer.seconds(current, current);
            for (LayerPlacement target : List.of(Realignment.align(scorer, best, current, 2),
                    BalanceThenLocal.place(ctx, scorer.cost(), gt, scorer.demand(), current))) {
                for (SlotChange op : SlotChanges.between(gt, scorer.demand(), current, target)) {
                    double exact = scorer.seconds(SlotChanges.applyFirst(current, List.of(op), 1), current);
                    double floor = bound.seconds(op);
                    assertThat(floor).as("trial %d, %s", trial, op).isLessThanOrEqualTo(exact * (1 + 1e-12));
                    changes++;
                    cannotGain += floor >= keep * (1 - 1e-9) ? 1 : 0;
                }
            }
        }
        assertThat(changes).isGreaterThan(100);
        assertThat(cannotGain).isGreaterThan(0);
    }

    /**
     * After the loadbench's shift the plan in use's bottleneck is the newly hot expert's single copy: among the changes
     * towards the re-aligned scratch plan, the one with the lowest bound (the walk's first) gives it a second copy.
     */
    @Test
    void ranksTheChangeThatCopiesTheNewlyHotExpertFirst() {
        int experts = 48;
        PlanningContext ctx = LayerFixtures.context("nodes=4,gpusPerNode=4,racks=2", experts, 2, Mode.REPLICATE);
        GroupTopology gt = ctx.group(0, 0);
        LayerPlacement staticP = LayerPlacement.staticLayout(gt.ep(), experts);
        for (int shift = 0; shift < 8; shift++) {
            LayerFixtures.Shift sh = LayerFixtures.Shift.of(ctx, gt, experts, shift);
            LayerPlacement current = sh.current();
            LayerScorer scorer = sh.scorer();
            LayerPlacement target = Realignment.align(scorer, new BallastPlanner(false).placeLayer(scorer, null, staticP),
                    current, 2);
            ChangeBound bound = new ChangeBound(scorer, current);
            SlotChange first = null;
            for (SlotChange op : SlotChanges.between(gt, scorer.demand(), current, target)) {
                if (first == null || bound.seconds(op) < bound.seconds(first)) {
                    first = op;
                }
            }
            assertThat(first).as("shift %d", shift).isNotNull();
            assertThat(first.added()).as("shift %d, %s", shift, first).isEqualTo(sh.hot());
        }
    }
}
