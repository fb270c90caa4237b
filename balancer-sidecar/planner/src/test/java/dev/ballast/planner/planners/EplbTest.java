package dev.ballast.planner.planners;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EplbTest {
    /** The example in DeepSeek EPLB's README: 2 layers, 12 experts, 16 replicas, 4 groups, 2 nodes, 8 GPUs. */
    @Test
    void reproducesTheReadmeExample() {
        double[][] weight = {
            {90, 132, 40, 61, 104, 165, 39, 4, 73, 56, 183, 86},
            {20, 107, 104, 64, 19, 197, 187, 157, 172, 86, 16, 27}};
        int[][] expected = {
            {5, 6, 5, 7, 8, 4, 3, 4, 10, 9, 10, 2, 0, 1, 11, 1},
            {7, 10, 6, 8, 6, 11, 8, 9, 2, 4, 5, 1, 5, 0, 3, 1}};
        for (int l = 0; l < 2; l++) {
            assertThat(Eplb.rebalance(weight[l], 16, 4, 2, 8)).containsExactly(expected[l]);
        }
    }

    @Test
    void replicateGivesExtraSlotsToTheHighestLoadPerCopy() {
        int[] phy2log = new int[6];
        int[] count = new int[3];
        Eplb.replicate(new double[] {100, 10, 40}, phy2log, count);
        // Slot 3: max(100, 10, 40) -> expert 0; slot 4: max(50, 10, 40) -> expert 0; slot 5: max(33.3, 10, 40) -> expert 2.
        assertThat(phy2log).containsExactly(0, 1, 2, 0, 0, 2);
        assertThat(count).containsExactly(3, 1, 2);
    }

    @Test
    void balancedPackingFillsTheLightestPackWithRoom() {
        int[][] r = Eplb.balancedPacking(new double[] {5, 1, 4, 2}, 2);
        // 5 -> pack 0, 4 -> pack 1, 2 -> pack 1 (6 vs 5? pack 0 has 5, pack 1 has 4: lightest is 1), 1 -> pack 0.
        assertThat(r[0]).containsExactly(0, 0, 1, 1);
        assertThat(r[1]).containsExactly(0, 1, 0, 1);
    }

    @Test
    void globalPolicyIsHierarchicalWithOneGroupAndNode() {
        double[] w = {90, 132, 40, 61, 104, 165, 39, 4, 73, 56, 183, 86};
        assertThat(Eplb.rebalance(w, 16, 3, 2, 8)).containsExactly(Eplb.hierarchical(w, 16, 1, 1, 8));
        int[] g = Eplb.global(w, 16, 8);
        int[] count = new int[12];
        for (int e : g) {
            count[e]++;
        }
        for (int c : count) {
            assertThat(c).isPositive();
        }
    }

    @Test
    void rejectsImpossibleShapes() {
        assertThatThrownBy(() -> Eplb.hierarchical(new double[12], 15, 4, 2, 8)).hasMessageContaining("not divisible by GPUs");
        assertThatThrownBy(() -> Eplb.hierarchical(new double[12], 8, 1, 1, 8)).hasMessageContaining("fewer than experts");
    }
}
