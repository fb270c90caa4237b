package dev.ballast.planner.load;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LoadForecastTest {
    /** One layer, {@code dp} copies, EP {@code ep}, 2 experts; source s of copy c sends {@code rows[c*ep+s]}. */
    static ModelLoads step(int dp, int ep, long[]... rows) {
        ModelLoads m = new ModelLoads(1, dp, ep, 2);
        for (int c = 0; c < dp; c++) {
            for (int s = 0; s < ep; s++) {
                System.arraycopy(rows[c * ep + s], 0, m.counts(0, c), s * 2, 2);
            }
        }
        return m;
    }

    @Test
    void predictsNothingBeforeAnyStepThenThePerSourceAverage() {
        LoadForecast f = new LoadForecast(0.5);
        assertThat(f.predict()).as("no layout yet").isNull();
        f.restart(1, 1, 2, 2);
        assertThat(f.predict()).as("no step, no history").isNull();
        f.observe(0, step(1, 2, new long[] {10, 0}, new long[] {0, 4}));
        f.observe(1, step(1, 2, new long[] {20, 0}, new long[] {0, 8}));
        assertThat(f.observedSteps()).isEqualTo(2);
        assertThat(f.predict().counts(0, 0)).containsExactly(15, 0, 0, 6);
        assertThat(f.history().lastStep()).isEqualTo(1);
        assertThat(f.history().last()[0]).containsExactly(20, 8);
        assertThat(f.history().smoothed()[0]).containsExactly(15, 6);
    }

    @Test
    void aNewLayoutStartsFromTheHistorySpreadExactlyOverItsSources() {
        LoadForecast f = new LoadForecast(1.0);
        f.restart(1, 1, 2, 2);
        f.observe(7, step(1, 2, new long[] {10, 0}, new long[] {1, 4}));
        f.restart(1, 2, 2, 2); // two copies of EP 2: four sources
        assertThat(f.observedSteps()).isZero();
        ModelLoads seeded = f.predict();
        // Totals 11 and 4 over four sources: 11 = 3 + 3 + 3 + 2, 4 = 1 + 1 + 1 + 1.
        assertThat(seeded.counts(0, 0)).containsExactly(3, 1, 3, 1);
        assertThat(seeded.counts(0, 1)).containsExactly(3, 1, 2, 1);
        f.observe(8, step(2, 2, new long[] {1, 1}, new long[] {1, 1}, new long[] {1, 1}, new long[] {1, 1}));
        assertThat(f.predict().counts(0, 1)).as("its own steps win once there are any").containsExactly(1, 1, 1, 1);
    }

    @Test
    void aRestoredHistoryPredictsExactlyWhatThePersistedOneDid() {
        LoadForecast before = new LoadForecast(0.5);
        before.restart(1, 1, 2, 2);
        before.observe(3, step(1, 2, new long[] {10, 1}, new long[] {0, 4}));
        before.observe(4, step(1, 2, new long[] {21, 0}, new long[] {1, 9}));
        before.restart(1, 2, 2, 2);

        LoadForecast after = new LoadForecast(0.5);
        after.history().restore(before.history().smoothed(), before.history().lastStep(),
                before.history().observedSteps());
        after.restart(1, 2, 2, 2);
        assertThat(after.predict().counts(0, 0)).containsExactly(before.predict().counts(0, 0));
        assertThat(after.predict().counts(0, 1)).containsExactly(before.predict().counts(0, 1));
        assertThat(after.history().lastStep()).isEqualTo(4);
        assertThat(after.history().observedSteps()).isEqualTo(2);
        after.observe(5, step(2, 2, new long[] {2, 2}, new long[] {2, 2}, new long[] {2, 2}, new long[] {2, 2}));
        // restored totals 16 and 7 (steps of 10+0, 21+1 and 1+4, 0+9), then a step of 8 and 8: 12 and 7.5
        assertThat(before.history().smoothed()[0]).containsExactly(16, 7);
        assertThat(after.history().smoothed()[0]).as("steps smooth onto the restored totals").containsExactly(12, 8);
    }

    @Test
    void aHistoryOfAnotherModelShapeSeedsNothing() {
        LoadForecast f = new LoadForecast(0.5);
        f.restart(1, 1, 2, 2);
        f.observe(0, step(1, 2, new long[] {1, 2}, new long[] {3, 4}));
        f.restart(2, 1, 2, 2);
        assertThat(f.predict()).isNull();
    }

    @Test
    void observingBeforeALayoutIsAnError() {
        assertThatThrownBy(() -> new LoadForecast(0.5).observe(0, step(1, 2, new long[] {1, 2}, new long[] {3, 4})))
                .hasMessageContaining("call restart before observing steps");
    }
}
