package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LayerScorer#floor}, the bound the incremental walk prunes prefix sizes with: never above the exact score, with
 * or without a one-off copy charged, often equal to it; and the walk that prunes with it chooses exactly what scoring
 * every size would.
 */
class PrefixFloorTest {

    /** Placements on the way from one plan to another: every prefix of the slot changes between them. */
    private static List<LayerPlacement> prefixes(LayerScorer scorer, LayerPlacement from, LayerPlacement to) {
        List<SlotChange> ops = SlotChanges.between(scorer.group(), scorer.demand(), from, to);
        List<LayerPlacement> out = new ArrayList<>();
        for (int k = 1; k <= ops.size(); k++) {
            out.add(SlotChanges.applyFirst(from, ops, k));
        }
        return out;
    }

    @ParameterizedTest
    @CsvSource({"'nodes=1,gpusPerNode=8,racks=1', 24, REPLICATE", "'nodes=2,gpusPerNode=4,racks=1', 32, REPLICATE",
            "'nodes=4,gpusPerNode=4,racks=2', 48, REPLICATE", "'nodes=8,gpusPerNode=4,racks=4', 64, REPLICATE",
            "'nodes=4,gpusPerNode=4,racks=2', 48, FSSDP", "'nodes=8,gpusPerNode=4,racks=2', 96, FSSDP"})
    void floorIsAtMostTheScoreAndOftenReachesIt(String topology, int experts, Mode mode) {
        SplittableRandom r = new SplittableRandom(topology.hashCode() + experts);
        PlanningContext ctx = LayerFixtures.context(topology, experts, 2, mode);
        GroupTopology gt = ctx.group(0, 0);
        LayerPlacement staticP = LayerPlacement.staticLayout(gt.ep(), experts);
        int placements = 0;
        int equal = 0;
        for (int trial = 0; trial < 12; trial++) {
            long[] before = trial % 3 == 0 ? LayerFixtures.zipf(gt.ep(), experts, trial)
                    : LayerFixtures.skewed(r, gt.ep(), experts);
            long[] after = trial % 3 == 0 ? LayerFixtures.zipf(gt.ep(), experts, trial + 1)
                    : LayerFixtures.skewed(r, gt.ep(), experts);
            LayerPlacement current = new BallastPlanner(false).placeLayer(LayerFixtures.scorer(ctx, gt, before), null,
                    staticP);
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, after);
            LayerPlacement target = new BallastPlanner(false).placeLayer(scorer, null, staticP);
            List<LayerPlacement> ps = new ArrayList<>(prefixes(scorer, current, target));
            ps.addAll(prefixes(scorer, current,
                    BalanceThenLocal.place(ctx, scorer.cost(), gt, scorer.demand(), current)));
            ps.add(current);
            ps.add(staticP);
            for (LayerPlacement p : ps) {
                double floor = scorer.floor(p);
                double steady = scorer.seconds(p, null);
                double charged = scorer.seconds(p, current);
                assertThat(floor).as("trial %d", trial).isLessThanOrEqualTo(steady).isLessThanOrEqualTo(charged);
                placements++;
                equal += floor == steady ? 1 : 0;
            }
        }
        assertThat(placements).isGreaterThan(50);
        // Where the busiest link is a receiving one and no parameter traffic is exposed, the floor is the score.
        assertThat(equal).isGreaterThan(0);
    }

    /**
     * The walk's choice against scoring every prefix size (the walk before pruning), in large layers (the bound ranks
     * the changes, no halving steps: the sizes are fixed in advance) after the loadbench's shift and on random loads;
     * and the floor does rule sizes out there.
     */
    @Test
    void pruningKeepsTheWalksChoiceAndRulesOutSizes() {
        int experts = 96;
        PlanningContext ctx = LayerFixtures.context("nodes=8,gpusPerNode=4,racks=2", experts, 2, Mode.REPLICATE);
        GroupTopology gt = ctx.group(0, 0);
        assertThat(LocalFill.applies(gt, experts)).isFalse();
        LayerPlacement staticP = LayerPlacement.staticLayout(gt.ep(), experts);
        SplittableRandom r = new SplittableRandom(17);
        int ruledOut = 0;
        for (int trial = 0; trial < 16; trial++) {
            LayerPlacement current;
            LayerScorer scorer;
            if (trial < 8) {
                LayerFixtures.Shift sh = LayerFixtures.Shift.of(ctx, gt, experts, trial);
                current = sh.current();
                scorer = sh.scorer();
            } else {
                current = new BallastPlanner(false).placeLayer(
                        LayerFixtures.scorer(ctx, gt, LayerFixtures.skewed(r, gt.ep(), experts)), null, staticP);
                scorer = LayerFixtures.scorer(ctx, gt, LayerFixtures.skewed(r, gt.ep(), experts));
            }
            LayerPlacement[] targets = {
                    Realignment.align(scorer, new BallastPlanner(false).placeLayer(scorer, null, staticP), current, 2),
                    BalanceThenLocal.place(ctx, scorer.cost(), gt, scorer.demand(), current)};
            LayerPlacement want = everySize(scorer, current, targets);
            assertThat(IncrementalWalk.towards(scorer, current, targets)).as("trial %d", trial).isEqualTo(want);
            ruledOut += ruledOut(scorer, current, targets);
        }
        assertThat(ruledOut).isGreaterThan(0);
    }

    /**
     * The walk with every size scored: {@link IncrementalWalk#towards} as it was before pruning (large layers).
     */
    private static LayerPlacement everySize(LayerScorer scorer, LayerPlacement current, LayerPlacement... targets) {
        double keep = scorer.seconds(current, current);
        double price = IncrementalWalk.price(Math.abs(keep), scorer.group().ep());
        LayerPlacement pick = current;
        double pickScore = keep;
        ChangeBound bound = new ChangeBound(scorer, current);
        for (LayerPlacement target : targets) {
            if (target.equals(current)) {
                continue;
            }
            List<SlotChange> ops = ranked(scorer, bound, current, target);
            int n = ops.size();
            int best = 0;
            double bestScore = keep;
            for (int k = 1; k <= n; k = k == n ? n + 1 : Math.min(n, 2 * k)) {
                double f = score(scorer, current, ops, k, price);
                if (f < bestScore) {
                    best = k;
                    bestScore = f;
                }
            }
            if (best > 0 && bestScore < pickScore) {
                pick = SlotChanges.applyFirst(current, ops, best);
                pickScore = bestScore;
            }
        }
        return pick;
    }

    /** Sizes whose floor plus price is at or above the best so far or the pick so far, as the walk meets them. */
    private static int ruledOut(LayerScorer scorer, LayerPlacement current, LayerPlacement... targets) {
        double keep = scorer.seconds(current, current);
        double price = IncrementalWalk.price(Math.abs(keep), scorer.group().ep());
        double pickScore = keep;
        ChangeBound bound = new ChangeBound(scorer, current);
        int out = 0;
        for (LayerPlacement target : targets) {
            if (target.equals(current)) {
                continue;
            }
            List<SlotChange> ops = ranked(scorer, bound, current, target);
            int n = ops.size();
            double bestScore = keep;
            for (int k = 1; k <= n; k = k == n ? n + 1 : Math.min(n, 2 * k)) {
                int copies = 0;
                for (int i = 0; i < k; i++) {
                    copies += ops.get(i).addsCopy() ? 1 : 0;
                }
                double floor = scorer.floor(SlotChanges.applyFirst(current, ops, k)) + copies * price;
                double f = score(scorer, current, ops, k, price);
                assertThat(floor).isLessThanOrEqualTo(f);
                if (floor >= Math.min(bestScore, pickScore)) {
                    out++;
                }
                bestScore = Math.min(bestScore, f);
            }
            pickScore = Math.min(pickScore, bestScore);
        }
        return out;
    }

    /** A target's changes by their bound, lowest first (ties in {@link SlotChanges#between}'s order). */
    private static List<SlotChange> ranked(LayerScorer scorer, ChangeBound bound, LayerPlacement current,
                                           LayerPlacement target) {
        Map<SlotChange, Double> floor = new HashMap<>();
        List<SlotChange> ops = new ArrayList<>(SlotChanges.between(scorer.group(), scorer.demand(), current, target));
        for (SlotChange op : ops) {
            double b = bound.seconds(op);
            floor.put(op, b == Double.NEGATIVE_INFINITY ? Double.POSITIVE_INFINITY : b);
        }
        ops.sort((x, y) -> Double.compare(floor.get(x), floor.get(y)));
        return ops;
    }

    private static double score(LayerScorer scorer, LayerPlacement current, List<SlotChange> ops, int k, double price) {
        int copies = 0;
        for (int i = 0; i < k; i++) {
            copies += ops.get(i).addsCopy() ? 1 : 0;
        }
        return scorer.seconds(SlotChanges.applyFirst(current, ops, k), current) + copies * price;
    }
}
