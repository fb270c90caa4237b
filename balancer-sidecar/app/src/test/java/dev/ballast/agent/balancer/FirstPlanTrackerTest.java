package dev.ballast.agent.balancer;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.contracts.status.BalancerStatus.FirstPlan;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FirstPlanTrackerTest {
    final FirstPlanTracker t = new FirstPlanTracker();

    @Test
    void countsTheStepsFromTheWorldsFirstStepToTheAdoptionOfItsFirstPlan() {
        t.newWorld(4);
        assertThat(t.current()).isNull();
        t.published(true);
        assertThat(t.current()).isEqualTo(new FirstPlan(4, "history", -1));
        t.adopted(new PlanVersion(4, 0), 100); // the static layout is no plan
        t.adopted(new PlanVersion(4, 9), 100); // adoption reported before the step's loads
        assertThat(t.current().steps()).isEqualTo(-1);
        t.stepSeen(101);
        t.stepSeen(100);
        assertThat(t.current()).isEqualTo(new FirstPlan(4, "history", 0));
        t.adopted(new PlanVersion(4, 10), 140);
        t.published(false);
        assertThat(t.current()).as("only the first counts").isEqualTo(new FirstPlan(4, "history", 0));
    }

    @Test
    void aPlanFromTheWorldsOwnStepsCountsTheStepsItWaited() {
        t.newWorld(5);
        t.stepSeen(0);
        t.stepSeen(1);
        t.published(false);
        t.adopted(new PlanVersion(4, 9), 2); // another world's plan
        t.adopted(new PlanVersion(5, 1), 2);
        assertThat(t.current()).isEqualTo(new FirstPlan(5, "steps", 2));
        t.newWorld(6);
        assertThat(t.current()).isNull();
    }
}
