package dev.ballast.planner.load;

import dev.ballast.planner.model.Parallelism;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LoadsTest {
    @Test
    void fewerSourcesThanGpusSplitEvenly() {
        // 2 sources over 4 GPUs: GPUs 0,1 <- source 0; GPUs 2,3 <- source 1.
        int[][][] step = {{{5, 2}, {1, 0}}};
        ModelLoads l = SourceMapping.toGpus(step, new Parallelism(2, 2, 1), 2, 0);
        assertThat(l.counts(0, 0)).containsExactly(3, 1, 2, 1);
        assertThat(l.counts(0, 1)).containsExactly(1, 0, 0, 0);
    }

    @Test
    void moreSourcesThanGpusMerge() {
        int[][][] step = {{{1, 0}, {2, 0}, {0, 4}, {0, 8}}};
        ModelLoads l = SourceMapping.toGpus(step, new Parallelism(2, 1, 1), 2, 0);
        assertThat(l.counts(0, 0)).containsExactly(3, 0, 0, 12);
    }

    @Test
    void rescalingKeepsTheExactTotalAndProportions() {
        long[] row = {1, 1, 1, 0, 7};
        SourceMapping.rescale(row, 100);
        assertThat(row).containsExactly(10, 10, 10, 0, 70);
        long[] odd = {1, 1, 1};
        SourceMapping.rescale(odd, 10);
        assertThat(odd[0] + odd[1] + odd[2]).isEqualTo(10);
        long[] zero = {0, 0};
        SourceMapping.rescale(zero, 10);
        assertThat(zero).containsExactly(0, 0);
    }

    @Test
    void emaPredictsAMovingAverage() {
        EmaPredictor p = new EmaPredictor(0.5);
        ModelLoads a = new ModelLoads(1, 1, 1, 2);
        a.counts(0, 0)[0] = 100;
        p.observe(a);
        ModelLoads b = new ModelLoads(1, 1, 1, 2);
        b.counts(0, 0)[1] = 10;
        p.observe(b);
        assertThat(p.predict(1, 2).counts(0, 0)).containsExactly(50, 5);
        assertThat(p.observedSteps()).isEqualTo(2);
    }
}
