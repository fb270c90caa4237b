package dev.ballast.agent.balancer;

import dev.ballast.contracts.status.BalancerStatus;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class MeasuredStepsTest {
    final MeasuredSteps m = new MeasuredSteps();

    @Test
    void nothingMeasuredIsNoBlockAndUntimedStepsLeaveTheTimesOut() {
        assertThat(m.summary()).isNull();
        m.timed(0, Double.NaN, Double.NaN);
        assertThat(m.summary()).as("a step without timings measures nothing").isNull();
        m.scored(0, 1.5, Double.NaN);
        BalancerStatus.Measured s = m.summary();
        assertThat(s.imbalanceBefore()).isEqualTo(1.5);
        assertThat(new double[] {s.imbalanceAfter(), s.stepSecondsBefore(), s.stepSecondsAfter(),
                s.computeSecondsBefore(), s.computeSecondsAfter()}).containsOnly(Double.NaN);
    }

    @Test
    void stepsAreAttributedByStepNumberEvenWhenTheAdoptionArrivesLate() {
        for (long step = 0; step < 10; step++) {
            m.timed(step, step < 8 ? 2.0 : 1.0, step < 8 ? 1.0 : 0.5); // steps 8, 9 ran the plan adopted at 8
        }
        m.plansInUse(8);
        m.timed(7, 9.9, 9.9); // late: before the plan
        m.timed(10, 1.0, 0.5);
        BalancerStatus.Measured s = m.summary();
        assertThat(s.stepSecondsBefore()).isEqualTo(2.0);
        assertThat(s.stepSecondsAfter()).isEqualTo(1.0);
        assertThat(s.stepTimeSpeedup()).isEqualTo(2.0);
        assertThat(s.computeSecondsBefore()).isEqualTo(1.0);
        assertThat(s.computeSecondsAfter()).isEqualTo(0.5);
    }

    @Test
    void laterPlansShareThePlansWindowWhileTheStaticLayoutsStaysClosed() {
        for (long step = 0; step < 4; step++) {
            m.timed(step, 3.0, 2.0);
        }
        m.plansInUse(4);
        m.scored(4, 1.8, 1.2);
        for (long step = 4; step < 12; step++) {
            m.timed(step, step < 10 ? 2.0 : 1.0, 1.0);
        }
        m.plansInUse(10); // a newer plan: re-planning every few steps must not empty the window
        m.scored(10, 1.6, 1.0);
        BalancerStatus.Measured s = m.summary();
        assertThat(s.stepSecondsBefore()).isEqualTo(3.0);
        assertThat(s.stepSecondsAfter()).as("steps 4..11 under either plan").isEqualTo((6 * 2.0 + 2 * 1.0) / 8);
        assertThat(s.imbalanceAfter()).as("each score under the plan its step ran").isCloseTo(1.1, within(1e-12));
        assertThat(s.imbalanceBefore()).isCloseTo(1.7, within(1e-12));
    }

    @Test
    void theMeansAreOverTheLastWindowOfSteps() {
        for (long step = 0; step < 100; step++) {
            m.timed(step, step, Double.NaN);
        }
        double lastWindow = (100 - StepWindow.CAPACITY + 99) / 2.0;
        assertThat(m.summary().stepSecondsBefore()).isCloseTo(lastWindow, within(1e-9));
        assertThat(m.summary().computeSecondsBefore()).isNaN();
        m.newWorld();
        assertThat(m.summary()).isNull();
    }
}
