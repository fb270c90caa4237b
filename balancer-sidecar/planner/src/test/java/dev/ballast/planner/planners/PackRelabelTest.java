package dev.ballast.planner.planners;

import dev.ballast.planner.Fixtures;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.StaticLayout;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class PackRelabelTest {
    @Test
    void hungarianFindsTheCheapestAssignment() {
        SplittableRandom r = new SplittableRandom(3);
        for (int t = 0; t < 200; t++) {
            int n = 1 + r.nextInt(6);
            int[][] a = new int[n][n];
            for (int[] row : a) {
                for (int j = 0; j < n; j++) {
                    row[j] = r.nextInt(-5, 6);
                }
            }
            int[] got = PackRelabel.hungarian(a);
            assertThat(cost(a, got)).isEqualTo(best(a, new int[n], new boolean[n], 0));
        }
    }

    @Test
    void packsLandWhereTheirMastersAreAndOnlyTheRestMove() {
        GroupTopology gt = Fixtures.group(4, 2, 1);
        // EPLB's packs in its own order: pack 0 holds GPU 3's homes (6, 7), pack 3 holds GPU 0's (0, 1) and so on.
        int[][] packs = {{6, 7, 0}, {4, 5, 5}, {2, 3, 5}, {0, 1, 7}};
        LayerPlacement p = PackRelabel.relabel(gt, 8, packs, 4);
        assertThat(p.expertsOn(0)).containsExactly(0, 1, 7);
        assertThat(p.expertsOn(3)).containsExactly(0, 6, 7);
        assertThat(p.replicas(p.copyIndex(2, 5))).isEqualTo(2); // pack {4, 5, 5}: two replicas of 5 on GPU 2
        for (int e = 0; e < 8; e++) {
            assertThat(p.master(e)).isEqualTo(StaticLayout.home(e, 4, 8));
        }
        assertThat(p.hasMovedMasters()).isFalse();
    }

    @Test
    void anExpertWhoseHomeHoldsNoCopyMovesItsMasterToTheNearestCopy() {
        GroupTopology gt = Fixtures.group(4, 2, 1);
        // Expert 1 (home GPU 0) only has copies in packs that go elsewhere: GPU 1 (same node) and GPU 3.
        int[][] packs = {{0, 2, 2}, {3, 2, 1}, {4, 5, 6}, {7, 6, 1}};
        LayerPlacement p = PackRelabel.relabel(gt, 8, packs, 4);
        assertThat(p.expertsOn(0)).containsExactly(0, 2);
        assertThat(p.holds(0, 1)).isFalse();
        assertThat(p.master(1)).isEqualTo(1); // GPU 1 shares GPU 0's node; GPU 3 does not
        assertThat(p.hasMovedMasters()).isTrue();
        for (int e = 0; e < 8; e++) {
            assertThat(p.holds(p.master(e), e)).isTrue();
        }
    }

    private static long cost(int[][] a, int[] assign) {
        long c = 0;
        for (int i = 0; i < a.length; i++) {
            c += a[i][assign[i]];
        }
        return c;
    }

    private static long best(int[][] a, int[] assign, boolean[] used, int row) {
        if (row == a.length) {
            return cost(a, assign);
        }
        long b = Long.MAX_VALUE;
        for (int j = 0; j < a.length; j++) {
            if (!used[j]) {
                used[j] = true;
                assign[row] = j;
                b = Math.min(b, best(a, assign, used, row + 1));
                used[j] = false;
            }
        }
        return b;
    }
}
