package dev.ballast.tools.synth;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SyntheticTraceTest {
    @Test
    void stepsAreDeterministicAndIndependentOfReadOrder() {
        SyntheticTrace a = new SyntheticTrace(Scenarios.byName("drift"));
        SyntheticTrace b = new SyntheticTrace(Scenarios.byName("drift"));
        int[][][] late = b.counts(123);
        assertThat(a.counts(123)).isDeepEqualTo(late);
        assertThat(a.counts(0)).isNotEqualTo(a.counts(1));
    }

    @Test
    void countsRespectTopKAndTotals() {
        SyntheticSpec s = new SyntheticSpec("t", 2, 16, 4, 3, 2, 1000, 2.0, 0, 0, 1, 0, 0, 1, 0);
        int[][][] c = new SyntheticTrace(s).counts(0);
        for (int[][] layer : c) {
            for (int[] src : layer) {
                long sum = 0;
                for (int x : src) {
                    assertThat(x).isBetween(0, 1000);
                    sum += x;
                }
                assertThat(sum).isEqualTo(4000);
            }
        }
    }

    @Test
    void skewMakesAFewExpertsHot() {
        SyntheticSpec s = Scenarios.byName("zipf-top1-hot");
        int[] row = new SyntheticTrace(s).counts(0)[0][0];
        int max = 0;
        long sum = 0;
        for (int x : row) {
            max = Math.max(max, x);
            sum += x;
        }
        assertThat(max * (double) row.length / sum).isGreaterThan(20);
    }

    @Test
    void unknownScenarioNamesTheKnownOnes() {
        assertThatThrownBy(() -> Scenarios.byName("nope")).hasMessageContaining("zipf-top1-hot");
    }
}
