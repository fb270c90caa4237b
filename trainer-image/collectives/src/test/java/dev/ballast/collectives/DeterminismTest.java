package dev.ballast.collectives;

import static dev.ballast.collectives.CollectivesTest.bits;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The same inputs give the same bits on every rank and across runs, whatever order messages arrive in. */
class DeterminismTest {
    private static final int N = 4096;

    @Test
    void allReduceSumIsBitIdenticalAcrossRanksAndRunsAndEqualsTheRankOrderSum() {
        List<float[]> inputs = new ArrayList<>();
        for (int r = 0; r < 5; r++) inputs.add(Reference.floats(42, r, N));

        // the inputs are order-sensitive: summing in reverse rank order gives other bits somewhere
        List<float[]> reversed = new ArrayList<>(inputs);
        Collections.reverse(reversed);
        float[] rankOrder = Reference.reduce(inputs, ReduceOp.SUM);
        assertThat(bits(Reference.reduce(reversed, ReduceOp.SUM))).isNotEqualTo(bits(rankOrder));

        List<int[]> runs = new ArrayList<>();
        for (int[] layout : new int[][] {{2, 3}, {1, 1, 3}, {3, 2}}) {
            try (TestWorld world = TestWorld.of(layout)) {
                List<float[]> got = world.run(c -> {
                    CollectivesTest.sleepMillis(7L * ((c.rank() * 3) % 5)); // ranks arrive in a scrambled order
                    return c.allReduce(inputs.get(c.rank()), ReduceOp.SUM);
                });
                for (float[] g : got) runs.add(bits(g));
            }
        }
        for (int[] run : runs) assertThat(run).isEqualTo(bits(rankOrder));
    }

    @Test
    void reduceScatterRepeatsBitForBit() {
        try (TestWorld world = TestWorld.of(2, 2)) {
            List<float[]> inputs = new ArrayList<>();
            for (int r = 0; r < 4; r++) inputs.add(Reference.floats(7, r, 10));
            int[] sizes = {0, 7, 1, 2};
            float[] full = Reference.reduce(inputs, ReduceOp.SUM);
            List<float[]> first = world.run(c -> c.reduceScatter(inputs.get(c.rank()), sizes, ReduceOp.SUM));
            List<float[]> second = world.run(c -> c.reduceScatter(inputs.get(c.rank()), sizes, ReduceOp.SUM));
            for (int r = 0; r < 4; r++) assertThat(bits(second.get(r))).isEqualTo(bits(first.get(r)));
            assertThat(bits(first.get(1))).isEqualTo(bits(java.util.Arrays.copyOfRange(full, 0, 7)));
        }
    }
}
