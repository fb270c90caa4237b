package dev.ballast.planner.ballast;

import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.StaticLayout;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RoutedSearchTest {
    @Test
    void neighboursAreEveryOneMoveChangeWithHomesKept() {
        // Two GPUs, three experts, two slots: GPU 0 holds homes 0 and 1, GPU 1 home 2 and a replica of 0. Moves of
        // the replica: replaced by 1, dropped (no trade: GPU 0 holds no replica); no GPU has a free slot.
        LayerPlacement p = LayerPlacement.of(3, new int[][] {{0, 1}, {0, 2}});
        assertThat(StaticLayout.home(2, 2, 3)).isEqualTo(1);
        assertThat(RoutedSearch.neighbours(p, 2)).containsExactly(
                LayerPlacement.of(3, new int[][] {{0, 1}, {1, 2}}),
                LayerPlacement.of(3, new int[][] {{0, 1}, {2}}));
        // With a third slot each GPU may also take the expert it lacks (GPU 0 first, in GPU order); the replica cannot
        // move to GPU 0, which holds expert 0 already.
        assertThat(RoutedSearch.neighbours(p, 3)).containsExactly(
                LayerPlacement.of(3, new int[][] {{0, 1, 2}, {0, 2}}),
                LayerPlacement.of(3, new int[][] {{0, 1}, {1, 2}}),
                LayerPlacement.of(3, new int[][] {{0, 1}, {2}}),
                LayerPlacement.of(3, new int[][] {{0, 1}, {0, 1, 2}}));
    }
}
