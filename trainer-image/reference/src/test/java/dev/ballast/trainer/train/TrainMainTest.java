package dev.ballast.trainer.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TrainMainTest {

    @Test
    void flagsParseAndUnknownOnesAreNamed() {
        assertThat(TrainMain.parse(new String[] {"--steps", "5", "--data", "/tmp/x"}))
                .containsEntry("steps", "5").containsEntry("data", "/tmp/x");
        assertThatThrownBy(() -> TrainMain.parse(new String[] {"--stepz", "5"})).hasMessageContaining("'--stepz'");
        assertThatThrownBy(() -> TrainMain.parse(new String[] {"--steps"}))
                .hasMessageContaining("--steps needs a value");
    }

    @Test
    void aSimulationWantsOneSidecarPerPod() {
        assertThatThrownBy(() -> DistributedTrainMain.runLocal(
                TrainMain.parse(new String[] {"--sidecar", "http://127.0.0.1:1"}), 2, 1))
                .hasMessage("--sidecar wants one URL per pod (2), got 1");
    }
}
