package dev.ballast.planner.model;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LayerPlacementTest {
    @Test
    void canonicalListsTakenAsTheyAreEqualTheSortedCopy() {
        int[][] lists = {{0, 1, 5}, {2, 3}, {0, 4, 5}};
        assertThat(LayerPlacement.ofAscending(6, lists)).isEqualTo(LayerPlacement.of(6, new int[][] {{5, 1, 0}, {3, 2}, {5, 0, 4, 4}}));
        assertThat(LayerPlacement.ofAscending(6, lists).copies(5)).isEqualTo(2);
    }

    @Test
    void listsThatAreNotStrictlyAscendingOrOutOfRangeAreRefusedWithTheirGpu() {
        assertThatThrownBy(() -> LayerPlacement.ofAscending(6, new int[][] {{0, 1}, {3, 2}}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("GPU 1");
        assertThatThrownBy(() -> LayerPlacement.ofAscending(6, new int[][] {{0, 0}}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("GPU 0");
        assertThatThrownBy(() -> LayerPlacement.ofAscending(6, new int[][] {{0, 6}}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[0, 6)");
    }
}
