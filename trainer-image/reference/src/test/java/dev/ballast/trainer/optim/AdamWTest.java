package dev.ballast.trainer.optim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.trainer.model.Param;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class AdamWTest {

    private final AdamW adam = new AdamW(new AdamWConfig(0.1f, 0.9f, 0.99f, 1e-8f, 0.5f));

    @Test
    void firstStepMovesByLrTimesTheGradientSignAfterDecoupledDecay() {
        Param p = new Param("w", 1, 2, true);
        p.data()[0] = 1f;
        p.data()[1] = -2f;
        p.grad()[0] = 0.3f;
        p.grad()[1] = -4f;
        adam.update(p, new AdamState(2));
        // bias correction makes mhat = g and vhat = g^2: the step is lr * sign(g); decay shrinks w by lr * wd first
        assertThat(p.data()[0]).isCloseTo(1f * (1 - 0.05f) - 0.1f, Offset.offset(1e-6f));
        assertThat(p.data()[1]).isCloseTo(-2f * (1 - 0.05f) + 0.1f, Offset.offset(1e-6f));
    }

    @Test
    void gainsAreNotDecayedAndStepsCountPerTensor() {
        Param gain = new Param("g", 1, 1, false);
        gain.data()[0] = 1f;
        AdamState state = new AdamState(1);
        adam.update(gain, state);
        assertThat(gain.data()[0]).isEqualTo(1f); // zero gradient, no decay: unchanged
        adam.update(gain, state);
        assertThat(state.steps()).isEqualTo(2);
    }

    @Test
    void updatingShardsGivesTheSameBitsAsTheWholeTensor() {
        Param whole = new Param("w", 2, 3, true);
        Param sharded = new Param("w", 2, 3, true);
        for (int i = 0; i < 6; i++) {
            whole.data()[i] = sharded.data()[i] = 0.1f * i - 0.2f;
            whole.grad()[i] = sharded.grad()[i] = 0.37f * (i % 3) - 0.5f;
        }
        AdamState s = new AdamState(6);
        AdamState first = new AdamState(4);
        AdamState second = new AdamState(2);
        for (int step = 0; step < 3; step++) {
            adam.update(whole, s);
            adam.update(sharded.data(), sharded.grad(), 0, first, true);
            adam.update(sharded.data(), sharded.grad(), 4, second, true);
        }
        assertThat(sharded.data()).containsExactly(whole.data());
    }

    @Test
    void badSettingsAreRejectedByName() {
        assertThatThrownBy(() -> new AdamWConfig(0f, 0.9f, 0.99f, 1e-8f, 0f)).hasMessageContaining("lr > 0");
        assertThatThrownBy(() -> adam.update(new Param("w", 1, 2, true), new AdamState(3)))
                .hasMessageContaining("for w of 2");
        assertThatThrownBy(() -> adam.update(new float[4], new float[4], 3, new AdamState(2), true))
                .hasMessageContaining("[3, 5) outside a tensor of 4");
    }
}
