package dev.ballast.planner.model;

import dev.ballast.planner.Fixtures;
import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.quota.QuotaRule;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MemoryBudgetTest {
    static final MoeShape SHAPE = MoeShape.forModel("olmoe", 16, 64, 8);
    static final Parallelism PAR = Parallelism.resolve(16, 64, null, 2); // EP 16 per stage, 8 layers per stage

    @Test
    void noBudgetKeepsTheRequestedSlots() {
        assertThat(MemoryBudget.slotsWithin(SHAPE, Mode.REPLICATE, PAR, 0, 3)).isEqualTo(3);
    }

    @Test
    void aBudgetAllowsExactlyTheSlotsWhosePeakFits() {
        for (Mode mode : Mode.values()) {
            for (int k = 0; k <= 5; k++) {
                long exact = (long) Math.ceil(MemoryBudget.peakBytes(SHAPE, mode, PAR, k));
                assertThat(MemoryBudget.slotsWithin(SHAPE, mode, PAR, exact, 8)).as("%s, %d slots", mode, k).isEqualTo(k);
                if (k > 0) {
                    assertThat(MemoryBudget.slotsWithin(SHAPE, mode, PAR, exact - 1, 8)).isEqualTo(k - 1);
                }
            }
            long roomy = (long) MemoryBudget.peakBytes(SHAPE, mode, PAR, 100);
            assertThat(MemoryBudget.slotsWithin(SHAPE, mode, PAR, roomy, 2)).as("capped by the requested slots").isEqualTo(2);
        }
    }

    @Test
    void aBudgetBelowTheHomeExpertsIsRefusedWithTheNumbers() {
        long floor = (long) Math.ceil(MemoryBudget.peakBytes(SHAPE, Mode.REPLICATE, PAR, 0));
        assertThatThrownBy(() -> MemoryBudget.slotsWithin(SHAPE, Mode.REPLICATE, PAR, floor - 1, 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("memoryBudgetBytes " + (floor - 1))
                .hasMessageContaining(floor + " bytes per GPU");
    }

    @Test
    void peakBytesIsTheCostModelsPeakMemoryOfFullSlotsOverAStage() {
        int ep = PAR.ep();
        int slots = 2;
        GroupTopology gt = Fixtures.group(ep, 8, 1);
        // Every GPU holds its homes plus `slots` replicas of other GPUs' experts.
        int[][] lists = new int[ep][];
        for (int g = 0; g < ep; g++) {
            int homes = StaticLayout.homeCount(g, ep, SHAPE.experts());
            lists[g] = new int[homes + slots];
            for (int i = 0; i < homes; i++) {
                lists[g][i] = StaticLayout.firstExpert(g, ep, SHAPE.experts()) + i;
            }
            for (int i = 0; i < slots; i++) {
                lists[g][homes + i] = StaticLayout.firstExpert((g + 1 + i) % ep, ep, SHAPE.experts());
            }
        }
        LayerPlacement p = LayerPlacement.of(SHAPE.experts(), lists);
        long[] counts = new long[ep * SHAPE.experts()];
        for (Mode mode : Mode.values()) {
            double perLayer = new CostModel(SHAPE, mode).layer(gt, p, QuotaRule.apply(gt, p, counts, null), null).peakMemoryBytes();
            assertThat(MemoryBudget.peakBytes(SHAPE, mode, PAR, slots)).as("%s", mode).isEqualTo(perLayer * 8);
        }
    }
}
