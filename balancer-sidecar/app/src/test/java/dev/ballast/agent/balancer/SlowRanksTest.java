package dev.ballast.agent.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SlowRanksTest {
    static double[] times(int gpus, double base, int slowRank, double factor) {
        double[] t = new double[gpus];
        Arrays.fill(t, base);
        if (slowRank >= 0) {
            t[slowRank] = base * factor;
        }
        return t;
    }

    /** Feeds {@code steps} steps of compute times; returns how many of them changed the flagged set. */
    static int feed(SlowRanks s, int steps, double[] compute) {
        int changes = 0;
        for (int i = 0; i < steps; i++) {
            changes += s.step(compute, null) ? 1 : 0;
        }
        return changes;
    }

    @Test
    void aRankAtTheFactorForThreeWindowsIsFlaggedAndClearedAfterThreeWindowsAtPace() {
        SlowRanks s = new SlowRanks(8);
        double[] slow = times(8, 0.2, 5, SlowRanks.FACTOR);
        assertThat(feed(s, SlowRanks.WINDOWS * SlowRanks.WINDOW_STEPS - 1, slow)).isZero();
        assertThat(s.flagged()).as("one step short of the third window").isEmpty();
        assertThat(s.step(slow, null)).isTrue();
        assertThat(s.flagged()).containsExactly(5);
        assertThat(s.ratio(5)).isCloseTo(SlowRanks.FACTOR, org.assertj.core.api.Assertions.within(1e-9));
        assertThat(s.usesCompute()).isTrue();

        double[] even = times(8, 0.2, -1, 1);
        assertThat(feed(s, SlowRanks.WINDOWS * SlowRanks.WINDOW_STEPS - 1, even)).isZero();
        assertThat(s.flagged()).as("still flagged two windows and seven steps later").containsExactly(5);
        assertThat(s.step(even, null)).isTrue();
        assertThat(s.flagged()).isEmpty();
    }

    @Test
    void belowTheFactorOrNotInARowIsNotFlagged() {
        SlowRanks s = new SlowRanks(4);
        feed(s, 10 * SlowRanks.WINDOW_STEPS, times(4, 0.2, 1, 1.29));
        assertThat(s.flagged()).as("1.29x its peers").isEmpty();
        for (int w = 0; w < 6; w++) { // slow, slow, at pace, slow, slow, at pace
            feed(s, SlowRanks.WINDOW_STEPS, times(4, 0.2, 2, w % 3 == 2 ? 1.0 : 2.0));
        }
        assertThat(s.flagged()).as("never three slow windows in a row").isEmpty();
    }

    @Test
    void theMedianIsOfThePeersSoTwoRanksCompareWithEachOtherAndSeveralSlowRanksAreEachFlagged() {
        SlowRanks two = new SlowRanks(2);
        feed(two, SlowRanks.WINDOWS * SlowRanks.WINDOW_STEPS, times(2, 1.0, 0, 1.4));
        assertThat(two.flagged()).containsExactly(0);

        SlowRanks many = new SlowRanks(8);
        double[] t = times(8, 0.2, 1, 1.5);
        t[6] = 0.4;
        feed(many, SlowRanks.WINDOWS * SlowRanks.WINDOW_STEPS, t);
        assertThat(many.flagged()).containsExactly(1, 6);
    }

    @Test
    void stepTimesServeWhenComputeTimesAreMissingAndAStepWithoutTimesIsSkipped() {
        SlowRanks s = new SlowRanks(4);
        double[] partial = times(4, 0.2, -1, 1);
        partial[3] = Double.NaN;
        for (int i = 0; i < SlowRanks.WINDOWS * SlowRanks.WINDOW_STEPS; i++) {
            s.step(partial, times(4, 0.5, 3, 2.0));
            assertThat(s.step(null, null)).isFalse();
        }
        assertThat(s.flagged()).containsExactly(3);
        assertThat(s.usesCompute()).isFalse();
    }

    @Test
    void theMedianWithoutOneElement() {
        double[] sorted = {1, 2, 3, 4, 10};
        assertThat(SlowRanks.medianWithout(sorted, 4)).isEqualTo(2.5);
        assertThat(SlowRanks.medianWithout(sorted, 0)).isEqualTo(3.5);
        assertThat(SlowRanks.medianWithout(sorted, 2)).isEqualTo(3.0);
        assertThat(SlowRanks.medianWithout(new double[] {1, 5}, 1)).isEqualTo(1.0);
    }
}
