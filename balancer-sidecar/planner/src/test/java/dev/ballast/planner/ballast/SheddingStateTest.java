package dev.ballast.planner.ballast;

import dev.ballast.planner.Fixtures;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.StaticLayout;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class SheddingStateTest {
    private static final GroupTopology GT = Fixtures.group(4, 2, 1);
    private static final int EXPERTS = 8;

    private static LayerDemand demand(long... totalsOnSourceZero) {
        long[] counts = new long[4 * EXPERTS];
        System.arraycopy(totalsOnSourceZero, 0, counts, 0, EXPERTS);
        return LayerDemand.of(GT, counts, EXPERTS);
    }

    @Test
    void aFreshStateHasEveryExpertAtHomeCarryingItsTotal() {
        SheddingState st = SheddingState.fresh(4, EXPERTS, 2, demand(1, 2, 3, 4, 5, 6, 7, 8));
        for (int e = 0; e < EXPERTS; e++) {
            assertThat(st.copyCount(e)).isEqualTo(1);
            assertThat(st.copyGpu(e, 0)).isEqualTo(StaticLayout.home(e, 4, EXPERTS));
            assertThat(st.copyLoad(e, 0)).isEqualTo(e + 1);
        }
        assertThat(st.load(0)).isEqualTo(3);
        assertThat(st.load(3)).isEqualTo(15);
        assertThat(st.toPlacement()).isEqualTo(LayerPlacement.staticLayout(4, EXPERTS));
    }

    @Test
    void shiftingToAReplicaMovesLoadFromTheBusiestCopyAndPruningDropsIdleReplicas() {
        SheddingState st = SheddingState.fresh(4, EXPERTS, 2, demand(0, 0, 0, 0, 0, 0, 10, 90));
        st.addReplica(7, 0);
        st.addReplica(6, 1);
        assertThat(st.holds(7, 0)).isTrue();
        assertThat(st.hasFreeSlot(0)).isTrue();
        st.shift(7, 0, 40);
        assertThat(st.load(0)).isEqualTo(40);
        assertThat(st.load(3)).isEqualTo(60);
        int[] e = new int[4];
        long[] a = new long[4];
        assertThat(st.expertsOn(3, e, a)).isEqualTo(2);
        assertThat(e).startsWith(7, 6);
        assertThat(a).startsWith(50, 10);
        // Expert 6's replica on GPU 1 carries nothing: dropped.
        assertThat(st.pruneUnused()).isEqualTo(1);
        assertThat(st.holds(6, 1)).isFalse();
        LayerPlacement p = st.toPlacement();
        assertThat(p.expertsOn(0)).containsExactly(0, 1, 7);
        assertThat(p.expertsOn(1)).containsExactly(2, 3);
    }

    /** The shedder's packed keys, largest first, are expertsOn's order: largest amount, then lowest expert. */
    @Test
    void loadKeysInDescendingOrderAreTheExpertsOnOrder() {
        SplittableRandom rnd = new SplittableRandom(4);
        for (int trial = 0; trial < 100; trial++) {
            long[] totals = new long[EXPERTS];
            for (int e = 0; e < EXPERTS; e++) {
                totals[e] = rnd.nextInt(4) == 0 ? 0 : 1 + rnd.nextInt(trial % 2 == 0 ? 5 : 1000); // ties on purpose
            }
            SheddingState st = SheddingState.fresh(4, EXPERTS, 2, demand(totals));
            for (int i = 0; i < 6; i++) {
                int e = rnd.nextInt(EXPERTS);
                int g = rnd.nextInt(4);
                if (!st.holds(e, g) && st.hasFreeSlot(g)) {
                    st.addReplica(e, g);
                    st.shift(e, g, rnd.nextInt(1 + (int) totals[e]));
                }
            }
            for (int g = 0; g < 4; g++) {
                int[] e = new int[8];
                long[] a = new long[8];
                long[] keys = new long[8];
                int n = st.expertsOn(g, e, a);
                assertThat(st.loadKeysOn(g, keys)).isEqualTo(n);
                long[] sorted = java.util.Arrays.copyOf(keys, n);
                java.util.Arrays.sort(sorted);
                for (int i = 0; i < n; i++) {
                    long k = sorted[n - 1 - i];
                    assertThat(32767 - (int) (k & 32767)).as("trial %d GPU %d #%d", trial, g, i).isEqualTo(e[i]);
                    assertThat(k >>> 15).isEqualTo(a[i]);
                }
            }
        }
    }

    @Test
    void movesConserveLoadAndPlacementsListEveryCopyAscending() {
        SplittableRandom rnd = new SplittableRandom(2);
        for (int trial = 0; trial < 50; trial++) {
            long[] totals = new long[EXPERTS];
            for (int e = 0; e < EXPERTS; e++) {
                totals[e] = rnd.nextInt(100);
            }
            SheddingState st = SheddingState.fresh(4, EXPERTS, 2, demand(totals));
            long sum = java.util.Arrays.stream(totals).sum();
            for (int step = 0; step < 10; step++) {
                int e = rnd.nextInt(EXPERTS);
                int g = rnd.nextInt(4);
                if (!st.holds(e, g) && st.hasFreeSlot(g)) {
                    st.addReplica(e, g);
                }
                if (st.holds(e, g)) {
                    st.shift(e, g, rnd.nextInt(50));
                }
            }
            long loads = 0;
            for (int g = 0; g < 4; g++) {
                loads += st.load(g);
                assertThat(st.replicaCount(g)).isLessThanOrEqualTo(2);
            }
            assertThat(loads).isEqualTo(sum);
            LayerPlacement p = st.toPlacement();
            for (int e = 0; e < EXPERTS; e++) {
                assertThat(p.copies(e)).isEqualTo(st.copyCount(e));
            }
            for (int g = 0; g < 4; g++) {
                assertThat(p.expertsOn(g)).isSorted();
            }
        }
    }
}
