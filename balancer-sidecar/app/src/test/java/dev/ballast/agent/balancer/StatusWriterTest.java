package dev.ballast.agent.balancer;

import dev.ballast.contracts.status.BalancerStatus;
import dev.ballast.agent.sim.MemoryStatusStore;
import dev.ballast.contracts.plan.PlanVersion;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StatusWriterTest {
    static final long SECOND = 1_000_000_000L;

    /** A store that can be told to fail. */
    static final class FlakyStore implements StatusStore {
        final MemoryStatusStore kept = new MemoryStatusStore();
        boolean failing;

        @Override
        public long loadPlanSequence() {
            return kept.loadPlanSequence();
        }

        @Override
        public void write(BalancerStatus status) {
            if (failing) {
                throw new IllegalStateException("API server unavailable");
            }
            kept.write(status);
        }
    }

    @Test
    void startsAboveThePersistedSequenceAndWritesAReservationAtOnce() {
        FlakyStore store = new FlakyStore();
        store.write(new BalancerStatus("1.4", 128, 7, 1, 1, 1, null));
        StatusWriter w = new StatusWriter(store);
        assertThat(w.current()).isEqualTo(new BalancerStatus("0.0", 128, -1, 1.0, 1.0, 1.0, null));
        w.reserveSequencesUpTo(192, 0);
        assertThat(store.kept.last().planSequence()).isEqualTo(192);
        store.failing = true;
        assertThatThrownBy(() -> w.reserveSequencesUpTo(256, 1)).hasMessageContaining("API server unavailable");
        assertThat(w.current().planSequence()).as("an unwritten reservation is not taken").isEqualTo(192);
    }

    @Test
    void otherChangesAreWrittenAtMostEveryTwoSecondsAndRetriedAfterAFailure() {
        FlakyStore store = new FlakyStore();
        StatusWriter w = new StatusWriter(store);
        w.newGeneration(4);
        w.flush(0);
        assertThat(store.kept.last()).isEqualTo(new BalancerStatus("4.0", 0, -1, 1.0, 1.0, 1.0, null));
        w.planned(2.5, 1.1, 1.8);
        w.flush(SECOND);
        assertThat(store.kept.writes).as("too soon").hasSize(1);
        store.failing = true;
        w.flush(2 * SECOND);
        store.failing = false;
        w.flush(3 * SECOND);
        assertThat(store.kept.writes).as("the failed write counts for the interval").hasSize(1);
        w.flush(4 * SECOND);
        assertThat(store.kept.last()).isEqualTo(new BalancerStatus("4.0", 0, -1, 2.5, 1.1, 1.8, null));
        w.flush(10 * SECOND);
        assertThat(store.kept.writes).as("nothing changed: nothing written").hasSize(2);
    }

    @Test
    void anAdoptionChangesTheStatusOnlyWhenTheVersionMoves() {
        StatusWriter w = new StatusWriter(new MemoryStatusStore());
        w.adopted(new PlanVersion(4, 2), 120);
        assertThat(w.current().planVersion()).isEqualTo("4.2");
        assertThat(w.current().adoptedAtStep()).isEqualTo(120);
        w.adopted(new PlanVersion(4, 2), 130);
        assertThat(w.current().adoptedAtStep()).as("the step the version was first reached").isEqualTo(120);
    }
}
