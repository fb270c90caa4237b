package dev.ballast.agent.balancer;

import dev.ballast.agent.sim.MemoryHistoryStore;
import dev.ballast.contracts.history.LoadHistoryJson;
import dev.ballast.planner.load.LoadHistory;
import dev.ballast.planner.load.ModelLoads;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HistoryPersistenceTest {
    final MemoryHistoryStore store = new MemoryHistoryStore();

    static void observe(LoadHistory h, long step, long a, long b) {
        ModelLoads m = new ModelLoads(1, 1, 1, 2);
        m.counts(0, 0)[0] = a;
        m.counts(0, 0)[1] = b;
        h.observe(step, m);
    }

    @Test
    void writesOnlyChangesAndAtMostEveryThirtySecondsThenFlushesAtShutdown() {
        HistoryPersistence p = new HistoryPersistence(store, "j");
        LoadHistory h = new LoadHistory(0.5);
        p.maybeWrite(h, 1, 0);
        assertThat(store.writes).as("nothing observed, nothing written").isEmpty();
        observe(h, 0, 10, 2);
        p.maybeWrite(h, 1, 0);
        assertThat(store.writes).hasSize(1);
        observe(h, 1, 20, 2);
        p.maybeWrite(h, 1, HistoryPersistence.WRITE_EVERY_NANOS - 1);
        assertThat(store.writes).as("within 30 s of the last write").hasSize(1);
        p.maybeWrite(h, 1, HistoryPersistence.WRITE_EVERY_NANOS);
        assertThat(store.writes).hasSize(2);
        p.maybeWrite(h, 1, 3 * HistoryPersistence.WRITE_EVERY_NANOS);
        assertThat(store.writes).as("unchanged since").hasSize(2);
        observe(h, 2, 30, 2);
        p.flush(h, 2, 3 * HistoryPersistence.WRITE_EVERY_NANOS + 1);
        assertThat(store.writes).as("a shutdown writes at once").hasSize(3);
        assertThat(store.text).isEqualTo("{\"format\":\"ballast-load-history/v1\",\"job\":\"j\",\"generation\":2,"
                + "\"lastStep\":2,\"observedSteps\":3,\"layers\":1,\"experts\":2,\"totals\":[[23,2]]}");
    }

    @Test
    void restoresWhatItPersistedAndDoesNotRewriteItUnchanged() {
        LoadHistory h = new LoadHistory(0.5);
        observe(h, 4, 10, 3);
        new HistoryPersistence(store, "j").flush(h, 7, 0);

        HistoryPersistence again = new HistoryPersistence(store, "j");
        LoadHistory restored = new LoadHistory(0.5);
        assertThat(again.restore(restored)).isEqualTo(1);
        assertThat(restored.smoothed()).isDeepEqualTo(h.smoothed());
        assertThat(restored.lastStep()).isEqualTo(4);
        again.maybeWrite(restored, 7, 0);
        assertThat(store.writes).hasSize(1);
    }

    @Test
    void refusesACorruptForeignOrMissingHistoryAndStartsFromNothing() {
        LoadHistory h = new LoadHistory(0.5);
        assertThat(new HistoryPersistence(store, "j").restore(h)).as("none persisted").isZero();
        store.text = "{\"format\":\"ballast-load-history/v1\",\"job\":\"j\",\"generation\":2,\"lastStep\":2,"
                + "\"observedSteps\":3,\"layers\":1,\"experts\":2,\"totals\":[[23]]}";
        assertThat(new HistoryPersistence(store, "j").restore(h)).isZero();
        store.text = "not json";
        assertThat(new HistoryPersistence(store, "j").restore(h)).isZero();
        LoadHistory other = new LoadHistory(0.5);
        observe(other, 0, 1, 1);
        new HistoryPersistence(store, "other").flush(other, 1, 0);
        assertThat(new HistoryPersistence(store, "j").restore(h)).as("another job's").isZero();
        assertThat(h.smoothed()).isNull();
        assertThat(LoadHistoryJson.decode(store.text).job()).isEqualTo("other");
    }

    @Test
    void aStoreThatFailsIsRetriedAndAHistoryTooLargeIsNotWritten() {
        HistoryStore failing = new HistoryStore() {
            int calls;

            @Override
            public String load() {
                throw new IllegalStateException("forbidden");
            }

            @Override
            public void write(String json) {
                if (calls++ == 0) {
                    throw new IllegalStateException("conflict");
                }
                store.write(json);
            }
        };
        HistoryPersistence p = new HistoryPersistence(failing, "j");
        LoadHistory h = new LoadHistory(0.5);
        assertThat(p.restore(h)).isZero();
        observe(h, 0, 1, 1);
        p.maybeWrite(h, 1, 0);
        assertThat(store.writes).isEmpty();
        p.maybeWrite(h, 1, HistoryPersistence.WRITE_EVERY_NANOS);
        assertThat(store.writes).as("retried").hasSize(1);

        LoadHistory huge = new LoadHistory(0.5);
        huge.observe(0, new ModelLoads(65, 1, 1, 1024));
        new HistoryPersistence(store, "j").flush(huge, 1, 0);
        assertThat(store.writes).hasSize(1);
    }
}
