package dev.ballast.agent.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.planner.model.Parallelism;
import org.junit.jupiter.api.Test;

class StepAssemblerTest {
    static final StepAssembler.Counts ONES = i -> 1;

    @Test
    void aRankMissingFromThreeReleasedStepsInARowIsSilentUntilItReportsAgain() {
        StepAssembler a = new StepAssembler(new Parallelism(4, 1, 1), 1, 2);
        long step = 0;
        for (; step < 3; step++) {
            for (int rank = 0; rank < 4; rank++) {
                a.add(step, rank, 0, 1, ONES, Double.NaN, Double.NaN);
            }
        }
        assertThat(a.silentRanks()).isZero();
        // rank 3 stops: its steps are released incomplete once MAX_OPEN_STEPS behind the newest
        for (; step < 3 + StepAssembler.MAX_OPEN_STEPS + StepAssembler.SILENT_AFTER - 1; step++) {
            for (int rank = 0; rank < 3; rank++) {
                a.add(step, rank, 0, 1, ONES, Double.NaN, Double.NaN);
            }
        }
        assertThat(a.silentRanks()).as("two incomplete steps released: not yet").isZero();
        for (int rank = 0; rank < 3; rank++) {
            a.add(step, rank, 0, 1, ONES, Double.NaN, Double.NaN);
        }
        step++;
        assertThat(a.silentRanks()).isEqualTo(1);
        for (long s = step - StepAssembler.MAX_OPEN_STEPS + 1; s <= step; s++) {
            a.add(s, 3, 0, 1, ONES, Double.NaN, Double.NaN);
        }
        assertThat(a.silentRanks()).as("reporting again").isZero();
    }

    @Test
    void aCompleteStepKeepsTheSlowestRanksTimesWhenEveryRankReportedThem() {
        StepAssembler a = new StepAssembler(new Parallelism(2, 1, 1), 1, 2);
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
