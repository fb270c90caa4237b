package dev.ballast.planner.policy;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReplanPolicyTest {
    static final DoubleSupplier BALANCED = () -> 1.0;
    static final long FAILURE_WAIT = ReplanPolicy.FAILURE_BACKOFF_NANOS;

    /** Starts and publishes a plan at {@code now} (it took no time). */
    static void planAt(ReplanPolicy p, long now) {
        assertThat(p.shouldStart(now)).isTrue();
        p.started(now);
        assertThat(p.finished(now, 1, 1)).isTrue();
    }

    @Test
    void theFirstPlanIsWantedAtOnceThenEveryInterval() {
        ReplanPolicy p = new ReplanPolicy(5);
        planAt(p, 0);
        for (int step = 1; step < 5; step++) {
            p.stepObserved(BALANCED);
            assertThat(p.shouldStart(step)).as("after %d steps", step).isFalse();
        }
        p.stepObserved(BALANCED);
        assertThat(p.shouldStart(5)).isTrue();
    }

    @Test
    void everyStepWantsAPlanWhileNoneIsInUse() {
        ReplanPolicy p = new ReplanPolicy(50);
        p.started(0);
        p.failed(0);
        p.stepObserved(() -> {
            throw new AssertionError("no plan in use: nothing to check");
        });
        assertThat(p.shouldStart(FAILURE_WAIT)).isTrue();
    }

    @Test
    void aGainCheckEveryTenStepsReplansEarlyOnlyAboveTheThresholdAndAfterAFifthOfTheInterval() {
        ReplanPolicy p = new ReplanPolicy(100);
        planAt(p, 0);
        AtomicInteger asked = new AtomicInteger();
        double[] imbalance = {1.0 + ReplanPolicy.GAIN_THRESHOLD};
        DoubleSupplier score = () -> {
            asked.incrementAndGet();
            return imbalance[0];
        };
        for (int step = 1; step <= 30; step++) {
            p.stepObserved(score);
            assertThat(p.shouldStart(step)).as("step %d: at the threshold is not above it", step).isFalse();
        }
        assertThat(asked.get()).as("checks at steps 20 and 30 (10 is before a fifth of 100)").isEqualTo(2);
        imbalance[0] = 1.2;
        for (int step = 31; step < 40; step++) {
            p.stepObserved(score);
            assertThat(p.shouldStart(step)).isFalse();
        }
        p.stepObserved(score);
        assertThat(p.shouldStart(40)).as("the check at step 40 finds a gain").isTrue();
        assertThat(asked.get()).isEqualTo(3);
    }

    @Test
    void aHighImbalanceEarlyInTheIntervalWaitsForAFifthOfIt() {
        ReplanPolicy p = new ReplanPolicy(100);
        planAt(p, 0);
        for (int step = 1; step < 20; step++) {
            p.stepObserved(() -> 3.0);
            assertThat(p.shouldStart(step)).as("step %d", step).isFalse();
        }
        p.stepObserved(() -> 3.0);
        assertThat(p.shouldStart(20)).isTrue();
    }

    @Test
    void theDutyCycleWaitsAsLongAsThePlanTookExceptForANewGeneration() {
        ReplanPolicy p = new ReplanPolicy(1);
        assertThat(p.shouldStart(1_000)).isTrue();
        p.started(1_000);
        assertThat(p.shouldStart(1_500)).as("one plan at a time").isFalse();
        assertThat(p.planning()).isTrue();
        assertThat(p.finished(1_400, 1, 1)).isTrue();
        p.stepObserved(BALANCED);
        assertThat(p.shouldStart(1_799)).isFalse();
        assertThat(p.shouldStart(1_800)).isTrue();
        p.newGeneration();
        assertThat(p.shouldStart(1_401)).as("a new world's first plan does not wait").isTrue();
    }

    @Test
    void aCandidateOfAnOlderGenerationIsDroppedAndTheNewWorldsPlanFollows() {
        ReplanPolicy p = new ReplanPolicy(50);
        p.started(0);
        p.newGeneration(); // the world changed while planning
        assertThat(p.shouldStart(1)).as("still planning").isFalse();
        assertThat(p.finished(10, 1, 2)).isFalse();
        assertThat(p.shouldStart(11)).as("the new world's plan starts at once").isTrue();
        p.stepObserved(() -> {
            throw new AssertionError("the dropped candidate is not in use");
        });
    }

    @Test
    void aFailureBacksOffAtLeastASecond() {
        ReplanPolicy p = new ReplanPolicy(1);
        p.started(0);
        p.failed(10);
        p.stepObserved(BALANCED);
        assertThat(p.shouldStart(FAILURE_WAIT + 9)).isFalse();
        assertThat(p.shouldStart(FAILURE_WAIT + 10)).isTrue();
    }

    @Test
    void newSettingsWantAPlanAndApplyTheirInterval() {
        ReplanPolicy p = new ReplanPolicy(50);
        planAt(p, 0);
        p.configure(2);
        planAt(p, 0);
        p.stepObserved(BALANCED);
        assertThat(p.shouldStart(1)).isFalse();
        p.stepObserved(BALANCED);
        assertThat(p.shouldStart(2)).isTrue();
        assertThatThrownBy(() -> p.configure(0)).hasMessageContaining("replanEverySteps must be at least 1, got 0");
    }
}
