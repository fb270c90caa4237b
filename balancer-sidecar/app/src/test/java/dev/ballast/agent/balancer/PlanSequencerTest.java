package dev.ballast.agent.balancer;

import dev.ballast.agent.sim.MemoryStatusStore;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PlanSequencerTest {
    @Test
    void reservesABlockAheadOfUseAndARestartContinuesAboveIt() {
        MemoryStatusStore store = new MemoryStatusStore();
        PlanSequencer s = new PlanSequencer(new StatusWriter(store));
        assertThat(s.next(0)).isEqualTo(1);
        assertThat(store.last().planSequence()).isEqualTo(PlanSequencer.BLOCK);
        for (int i = 2; i <= PlanSequencer.BLOCK; i++) {
            assertThat(s.next(0)).isEqualTo(i);
        }
        assertThat(store.writes).as("one reservation for the whole block").hasSize(1);
        assertThat(s.next(0)).isEqualTo(PlanSequencer.BLOCK + 1);
        assertThat(store.last().planSequence()).isEqualTo(2 * PlanSequencer.BLOCK);

        PlanSequencer restarted = new PlanSequencer(new StatusWriter(store));
        assertThat(restarted.next(0)).isEqualTo(2 * PlanSequencer.BLOCK + 1);
    }

    @Test
    void aReservationThatCannotBeWrittenUsesNoSequence() {
        StatusWriterTest.FlakyStore store = new StatusWriterTest.FlakyStore();
        PlanSequencer s = new PlanSequencer(new StatusWriter(store));
        store.failing = true;
        assertThatThrownBy(() -> s.next(0)).hasMessageContaining("API server unavailable");
        store.failing = false;
        assertThat(s.next(0)).isEqualTo(1);
    }
}
