package dev.ballast.planner.quota;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.LayerPlacement;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PlannedSplitTest {
    private static final GroupTopology TWO = GroupTopology.ofPlaces(new int[] {0, 0}, new int[] {0, 0}, Hardware.DEFAULT);

    /** Expert 0 on both GPUs (copy indices 0 and 1), expert 1 on GPU 1 only (copy index 2). */
    private static final LayerPlacement P = LayerPlacement.of(2, new int[][] {{0}, {0, 1}});

    private static List<List<Long>> flows(QuotaResult r) {
        List<List<Long>> out = new ArrayList<>();
        r.forEachFlow((e, s, c, t) -> out.add(List.of((long) e, (long) s, (long) c, t)));
        return out;
    }

    @Test
    void splitsByWeightWithTheRemainderToTheLargestFractions() {
        // Source 0 weighs expert 0's copies 1:2, source 1 weighs them 1:0.
        LayerPlacement routed = P.withRoutes(new int[] {1, 2, 0, 1, 0, 0});
        long[] counts = {10, 4, 7, 5}; // [source][expert]
        QuotaResult r = QuotaRule.apply(TWO, routed, counts, null);
        // 10 x 1/3 = 3 rest 1, 10 x 2/3 = 6 rest 2: the one token left goes to copy 1 (larger rest): 3 and 7.
        assertThat(flows(r)).contains(List.of(0L, 0L, 0L, 3L), List.of(0L, 0L, 1L, 7L), List.of(0L, 1L, 0L, 7L));
        assertThat(r.copyQuota(0)).isEqualTo(10);
        assertThat(r.copyQuota(1)).isEqualTo(7);
        assertThat(r.copyQuota(2)).isEqualTo(9);
        assertThat(r.gpuLoad(0)).isEqualTo(10);
        assertThat(r.gpuLoad(1)).isEqualTo(16);
        assertThat(r.threshold()).isEqualTo(16);
        assertThat(r.byQuotaRule()).isTrue();
        // Equal rests go to the lower copy: 5 x 1/2 = 2 rest 1 each, so copy 0 takes 3.
        QuotaResult even = QuotaRule.apply(TWO, P.withRoutes(new int[] {1, 1, 0, 1, 1, 0}), new long[] {5, 0, 0, 0}, null);
        assertThat(even.copyQuota(0)).isEqualTo(3);
        assertThat(even.copyQuota(1)).isEqualTo(2);
    }

    @Test
    void aCapacityThePlannedSplitExceedsHandsTheStepToTheRule() {
        LayerPlacement routed = P.withRoutes(new int[] {0, 1, 0, 0, 1, 0}); // everything of expert 0 to GPU 1
        long[] counts = {10, 0, 10, 0};
        assertThat(QuotaRule.apply(TWO, routed, counts, null).gpuLoad(1)).isEqualTo(20);
        QuotaResult capped = QuotaRule.apply(TWO, routed, counts, new long[] {20, 12});
        assertThat(flows(capped)).isEqualTo(flows(QuotaRule.apply(TWO, P, counts, new long[] {20, 12})));
        assertThat(capped.gpuLoad(1)).isLessThanOrEqualTo(12);
    }

    @Test
    void badWeightsAreRefusedWithTheSourceAndExpert() {
        assertThatThrownBy(() -> P.withRoutes(new int[] {0, 0, 0, 1, 1, 0}))
                .hasMessageContaining("source 0, expert 0: weights sum to 0, outside 1..16384");
        assertThatThrownBy(() -> P.withRoutes(new int[] {1, 1, 3, 1, 1, 0}))
                .hasMessageContaining("source 0, expert 1: weight 3 on a single copy (must be 0)");
        assertThatThrownBy(() -> P.withRoutes(new int[] {1, -1, 0, 1, 1, 0}))
                .hasMessageContaining("weight -1 is negative");
        assertThatThrownBy(() -> P.withRoutes(new int[] {1, 1, 0}))
                .hasMessageContaining("3 weights for 2 sources x 3 copies");
        assertThatThrownBy(() -> P.withRoutes(new int[] {16384, 1, 0, 1, 1, 0}))
                .hasMessageContaining("weights sum to 16385");
    }
}
