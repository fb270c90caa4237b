package dev.ballast.trainer.moe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.trainer.backend.JavaBackend;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class RoutingTest {

    @Test
    void topKPicksTheLargestLogitsBestFirstAndTiesGoToTheLowerExpert() {
        // dim 1 and x = 1: the logits are the gate's weights themselves
        Gate gate = new Gate("gate", 1, 5, 3);
        System.arraycopy(new float[] {0.5f, 2f, 0.5f, 3f, -1f}, 0, gate.weight().data(), 0, 5);
        Routing r = gate.route(JavaBackend.create(), new float[] {1f}, 1);
        assertThat(r.expert()).containsExactly(3, 1, 0);
        double z = Math.exp(3) + Math.exp(2) + Math.exp(0.5);
        assertThat(r.weight()[0]).isCloseTo((float) (Math.exp(3) / z), Offset.offset(1e-6f));
        assertThat(r.weight()[2]).isCloseTo((float) (Math.exp(0.5) / z), Offset.offset(1e-6f));
    }

    @Test
    void countsSumToTokensTimesKAndDispatchCoversEverySlotOnce() {
        Random random = new Random(9);
        int dim = 8, experts = 6, k = 2, tokens = 50;
        Gate gate = new Gate("gate", dim, experts, k);
        gate.weight().fillGaussian(random, 1);
        float[] x = new float[tokens * dim];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) random.nextGaussian();
        }
        Routing r = gate.route(JavaBackend.create(), x, tokens);
        assertThat(Arrays.stream(r.counts()).sum()).isEqualTo(tokens * k);
        for (int t = 0; t < tokens; t++) {
            assertThat(r.expert()[t * k]).as("distinct experts per token").isNotEqualTo(r.expert()[t * k + 1]);
            assertThat(r.weight()[t * k] + r.weight()[t * k + 1]).isCloseTo(1f, Offset.offset(1e-6f));
            assertThat(r.weight()[t * k]).as("best first").isGreaterThanOrEqualTo(r.weight()[t * k + 1]);
        }
        List<ExpertBatch> batches = Dispatch.batches(0, r, x, dim);
        boolean[] seen = new boolean[tokens * k];
        for (ExpertBatch b : batches) {
            assertThat(b.rows()).isEqualTo(r.counts()[b.expert()]);
            for (int row = 0; row < b.rows(); row++) {
                int slot = b.slots()[row];
                assertThat(seen[slot]).isFalse();
                seen[slot] = true;
                assertThat(r.expert()[slot]).isEqualTo(b.expert());
                assertThat(Arrays.copyOfRange(b.input(), row * dim, row * dim + dim))
                        .containsExactly(Arrays.copyOfRange(x, slot / k * dim, slot / k * dim + dim));
            }
        }
        assertThat(seen).doesNotContain(false);
    }

    @Test
    void routingSkewFavoursLowExpertIdsAndZeroSkewIsTheLearnedGate() {
        Random random = new Random(4);
        int dim = 8, experts = 8, tokens = 400;
        float[] x = new float[tokens * dim];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) random.nextGaussian();
        }
        Gate plain = new Gate("gate", dim, experts, 2);
        plain.weight().fillGaussian(random, 0.3);
        Gate unskewed = new Gate("gate", dim, experts, 2, 0f);
        Gate skewed = new Gate("gate", dim, experts, 2, 2f);
        System.arraycopy(plain.weight().data(), 0, unskewed.weight().data(), 0, dim * experts);
        System.arraycopy(plain.weight().data(), 0, skewed.weight().data(), 0, dim * experts);
        var backend = JavaBackend.create();
        Routing a = plain.route(backend, x, tokens);
        assertThat(unskewed.route(backend, x, tokens).expert()).containsExactly(a.expert());
        int[] counts = skewed.route(backend, x, tokens).counts();
        assertThat(counts[0]).isGreaterThan(a.counts()[0]);
        assertThat(counts[0]).isGreaterThan(counts[experts - 1]);
        assertThat(Arrays.stream(counts).sum()).isEqualTo(tokens * 2);
    }
}
