package dev.ballast.planner.ballast;

import dev.ballast.planner.Fixtures;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class CountRepairTest {

    /**
     * On random plans in use and targets: a valid placement; every expert with copies to spare ends with the target's
     * count and every other expert keeps its copies; an expert short of copies gets them up to the target's count,
     * stopping short only where every GPU with a free slot already holds it; and nothing else changes, so the slot
     * changes to it are exactly the count differences.
     */
    @Test
    void changesOnlyTheCopyCounts() {
        SplittableRandom rnd = new SplittableRandom(3);
        int slots = 2;
        int experts = 24;
        PlanningContext ctx = LayerFixtures.context("nodes=4,gpusPerNode=2,racks=1", experts, slots, Mode.REPLICATE);
        GroupTopology gt = ctx.group(0, 0);
        for (int trial = 0; trial < 200; trial++) {
            LayerScorer scorer = LayerFixtures.scorer(ctx, gt, LayerFixtures.skewed(rnd, 8, experts));
            LayerPlacement current = Fixtures.randomPlacement(rnd, 8, experts, slots);
            LayerPlacement target = Fixtures.randomPlacement(rnd, 8, experts, slots);
            LayerPlacement repaired = CountRepair.repair(scorer, target, current, slots);
            LayerFixtures.assertValid(repaired, slots);
            int changes = 0;
            for (int e = 0; e < experts; e++) {
                int have = current.copies(e);
                int want = target.copies(e);
                int got = repaired.copies(e);
                for (int g = 0; g < 8; g++) {
                    if (repaired.holds(g, e) != current.holds(g, e)) {
                        changes++;
                        // Copies are only dropped from experts with copies to spare, only added to those short of them.
                        assertThat(repaired.holds(g, e) ? have < want : have > want)
                                .as("trial %d: expert %d changed on GPU %d with %d copies against %d", trial, e, g, have, want)
                                .isTrue();
                    }
                }
                if (have >= want) {
                    assertThat(got).as("trial %d expert %d", trial, e).isEqualTo(want);
                } else {
                    assertThat(got).as("trial %d expert %d", trial, e).isBetween(have, want);
                    if (got < want) {
                        for (int g = 0; g < 8; g++) {
                            assertThat(repaired.nonHomeCopies(g) == slots || repaired.holds(g, e))
                                    .as("trial %d: GPU %d had room for expert %d", trial, g, e).isTrue();
                        }
                    }
                }
                changes -= Math.abs(got - have);
            }
            assertThat(changes).as("trial %d: slot changes beyond the count differences", trial).isZero();
            assertThat(CountRepair.repair(scorer, target, current, slots)).isEqualTo(repaired);
        }
    }

    /**
     * Two nodes of two GPUs, experts 2g and 2g + 1 at home on GPU g. Expert 0 is hot on node 1 only; expert 5 has a
     * replica on each node but its tokens come from node 0. The target gives 0 one more copy and 5 one fewer: 5 loses
     * the replica on node 1 (no tokens there), and 0's new copy goes to node 1, where its tokens are, on the GPU the
     * freed slot leaves lighter.
     */
    @Test
    void dropsWhereTheExpertHasFewTokensAndAddsWhereItHasMany() {
        int experts = 8;
        int slots = 1;
        PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=2,racks=1", experts, slots, Mode.REPLICATE);
        GroupTopology gt = ctx.group(0, 0);
        long[] counts = new long[4 * experts];
        for (int s = 0; s < 4; s++) {
            for (int e = 0; e < experts; e++) {
                counts[s * experts + e] = 10;
            }
        }
        counts[2 * experts] = 400;
        counts[3 * experts] = 400;
        counts[0 * experts + 5] = 100;
        counts[1 * experts + 5] = 100;
        counts[2 * experts + 5] = 0;
        counts[3 * experts + 5] = 0;
        LayerScorer scorer = LayerFixtures.scorer(ctx, gt, counts);
        LayerPlacement current = LayerPlacement.of(experts, new int[][] {{0, 1, 5}, {2, 3}, {4, 5}, {6, 7, 5}});
        LayerPlacement target = LayerPlacement.of(experts, new int[][] {{0, 1}, {2, 3, 5}, {4, 5, 0}, {6, 7}});
        LayerPlacement repaired = CountRepair.repair(scorer, target, current, slots);
        assertThat(repaired).isEqualTo(LayerPlacement.of(experts, new int[][] {{0, 1, 5}, {2, 3}, {4, 5}, {0, 6, 7}}));
    }

    /**
     * The loadbench's shift of the hot set at EP 64 (a layer too large for {@link LocalFill}, where the incremental walk
     * starts from this target): the newly hot expert gets the from-scratch winner's copies while the replicas of the
     * others stay where they are, so the target is far fewer slot changes away than the re-aligned winner.
     */
    @Test
    void afterAShiftTheHotExpertGetsItsCopiesInFewChanges() {
        int experts = 64;
        int slots = 2;
        PlanningContext ctx = LayerFixtures.context("nodes=8,gpusPerNode=8,racks=2", experts, slots, Mode.REPLICATE);
        GroupTopology gt = ctx.group(0, 0);
        LayerFixtures.Shift shift = LayerFixtures.Shift.of(ctx, gt, experts, 0);
        LayerPlacement scratch = new BallastPlanner(false).placeLayer(shift.scorer(), null,
                LayerPlacement.staticLayout(gt.ep(), experts));
        assertThat(LocalFill.applies(gt, experts)).isFalse();
        LayerPlacement repaired = CountRepair.repair(shift.scorer(), scratch, shift.current(), slots);
        assertThat(repaired.copies(shift.hot())).isEqualTo(scratch.copies(shift.hot()))
                .isGreaterThan(shift.current().copies(shift.hot()));
        int toRepaired = SlotChanges.between(gt, shift.scorer().demand(), shift.current(), repaired).size();
        int toRealigned = SlotChanges.between(gt, shift.scorer().demand(), shift.current(),
                Realignment.align(shift.scorer(), scratch, shift.current(), slots)).size();
        assertThat(toRepaired).isPositive().isLessThan(toRealigned);
        assertThat(shift.scorer().maxLoad(repaired)).isLessThan(shift.scorer().maxLoad(shift.current()));
    }
}
