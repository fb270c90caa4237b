package dev.ballast.agent.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.agent.sidecar.SidecarLink;
import dev.ballast.planner.model.Parallelism;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StepAssemblerTest {
    static final StepAssembler.Counts ONES = i -> 1;

    @Test
    void aRankMissingFromThreeReleasedStepsInARowIsSilentUntilItReportsAgain() {
        StepAssembler a = new StepAssembler(new Parallelism(4, 1, 1), 1, 2, () -> 0);
        long step = 0;
        for (; step < 3; step++) {
            for (int rank = 0; rank < 4; rank++) {
                a.add(step, rank, 0, 1, ONES, Double.NaN, Double.NaN);
            }
        }
        assertThat(a.silentRankList()).isEmpty();
        // rank 3 stops: its steps are released incomplete once MAX_OPEN_STEPS behind the newest
        for (; step < 3 + StepAssembler.MAX_OPEN_STEPS + StepAssembler.SILENT_AFTER - 1; step++) {
            for (int rank = 0; rank < 3; rank++) {
                a.add(step, rank, 0, 1, ONES, Double.NaN, Double.NaN);
            }
        }
        assertThat(a.silentRankList()).as("two incomplete steps released: not yet").isEmpty();
        for (int rank = 0; rank < 3; rank++) {
            a.add(step, rank, 0, 1, ONES, Double.NaN, Double.NaN);
        }
        step++;
        assertThat(a.silentRankList()).containsExactly(3);
        for (long s = step - StepAssembler.MAX_OPEN_STEPS + 1; s <= step; s++) {
            a.add(s, 3, 0, 1, ONES, Double.NaN, Double.NaN);
        }
        assertThat(a.silentRankList()).as("reporting again").isEmpty();
    }

    @Test
    void aRankNotHeardFromYetIsSilentOnlyOnceItsPeersReconnectWaitHasPassed() {
        long[] now = {0};
        StepAssembler a = new StepAssembler(new Parallelism(2, 1, 1), 1, 2, () -> now[0]);
        for (long step = 0; step < 20; step++) {
            a.add(step, 0, 0, 1, ONES, Double.NaN, Double.NaN); // rank 1's sidecar still waits to reconnect
        }
        assertThat(a.silentRankList()).as("within the grace").isEmpty();
        now[0] = StepAssembler.FIRST_REPORT_GRACE_NANOS;
        assertThat(a.silentRankList()).containsExactly(1);
        assertThat(StepAssembler.FIRST_REPORT_GRACE_NANOS).as("longer than the sidecar's longest reconnect wait")
                .isGreaterThan(TimeUnit.MILLISECONDS.toNanos(SidecarLink.BACKOFF_MAX_MILLIS));
    }

    @Test
    void aCompleteStepKeepsTheSlowestRanksTimesWhenEveryRankReportedThem() {
        StepAssembler a = new StepAssembler(new Parallelism(2, 1, 1), 1, 2, () -> 0);
        assertThat(a.add(0, 0, 0, 1, ONES, 0.5, 0.2)).isEmpty();
        StepAssembler.Released timed = a.add(0, 1, 0, 1, ONES, 0.7, 0.1).get(0);
        assertThat(timed.complete()).isTrue();
        assertThat(timed.slowestStepSeconds()).isEqualTo(0.7);
        assertThat(timed.slowestComputeSeconds()).isEqualTo(0.2);

        a.add(1, 0, 0, 1, ONES, 0.5, Double.NaN);
        StepAssembler.Released partly = a.add(1, 1, 0, 1, ONES, 0.6, 0.3).get(0);
        assertThat(partly.slowestStepSeconds()).isEqualTo(0.6);
        assertThat(partly.slowestComputeSeconds()).as("rank 0 sent no compute time").isNaN();

        a.add(2, 0, 0, 1, ONES, 0.5, 0.2); // rank 1 never reports step 2: released incomplete
        StepAssembler.Released incomplete = null;
        for (long step = 3; incomplete == null; step++) {
            incomplete = a.add(step, 0, 0, 1, ONES, 0.5, 0.2).stream().filter(r -> r.step() == 2).findFirst()
                    .orElse(null);
        }
        assertThat(incomplete.complete()).isFalse();
        assertThat(incomplete.slowestStepSeconds()).isNaN();
    }
}
