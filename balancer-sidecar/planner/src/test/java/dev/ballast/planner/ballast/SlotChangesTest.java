package dev.ballast.planner.ballast;

import dev.ballast.planner.Fixtures;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class SlotChangesTest {

    private static boolean sameSets(LayerPlacement a, LayerPlacement b) {
        for (int g = 0; g < a.gpus(); g++) {
            if (a.expertCount(g) != b.expertCount(g)) {
                return false;
            }
            for (int e : a.expertsOn(g)) {
                if (!b.holds(g, e)) {
                    return false;
                }
            }
        }
        return true;
    }

    @Test
    void allChangesTurnCurrentIntoTargetMostValuableFirst() {
        SplittableRandom rnd = new SplittableRandom(1);
        GroupTopology gt = Fixtures.group(8, 4, 1);
        for (int trial = 0; trial < 50; trial++) {
            LayerDemand d = LayerDemand.of(gt, Fixtures.counts(rnd, 8, 24, 500), 24);
            LayerPlacement current = Fixtures.randomPlacement(rnd, 8, 24, 2);
            LayerPlacement target = Fixtures.randomPlacement(rnd, 8, 24, 2);
            List<SlotChange> ops = SlotChanges.between(gt, d, current, target);
            assertThat(sameSets(SlotChanges.applyFirst(current, ops, ops.size()), target)).as("trial %d", trial).isTrue();
            assertThat(SlotChanges.applyFirst(current, ops, 0)).isEqualTo(current);
            for (int i = 1; i < ops.size(); i++) {
                assertThat(value(gt, d, ops.get(i - 1))).isGreaterThanOrEqualTo(value(gt, d, ops.get(i)));
            }
            assertThat(SlotChanges.between(gt, d, current, current)).isEmpty();
        }
    }

    private static long value(GroupTopology gt, LayerDemand d, SlotChange op) {
        int node = gt.nodeIndex(op.gpu());
        return (op.addsCopy() ? d.nodeTokens(node, op.added()) : 0) - (op.removed() >= 0 ? d.nodeTokens(node, op.removed()) : 0);
    }

    @Test
    void replaceSwapsAddsOrDrops() {
        assertThat(SlotChanges.replace(new int[] {1, 2, 3}, 2, 7)).containsExactly(1, 3, 7);
        assertThat(SlotChanges.replace(new int[] {1, 2, 3}, -1, 7)).containsExactly(1, 2, 3, 7);
        assertThat(SlotChanges.replace(new int[] {1, 2, 3}, 1, -1)).containsExactly(2, 3);
    }

    @Test
    void replaceKeepsAnAscendingListAscending() {
        // Placements take the lists without sorting them again (LayerPlacement.ofAscending), so order matters.
        assertThat(SlotChanges.replace(new int[] {1, 4, 9}, 9, 0)).containsExactly(0, 1, 4);
        assertThat(SlotChanges.replace(new int[] {1, 4, 9}, 1, 5)).containsExactly(4, 5, 9);
        assertThat(SlotChanges.replace(new int[] {1, 4, 9}, -1, 4)).containsExactly(1, 4, 9);
        assertThat(SlotChanges.replace(new int[] {}, -1, 3)).containsExactly(3);
        assertThat(SlotChanges.replace(new int[] {2}, 2, -1)).isEmpty();
    }
}
