package dev.ballast.agent.sidecar;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PlanStoreTest {
    static PlanVersion v(long g, long s) {
        return new PlanVersion(g, s);
    }

    static Plan plan(long g, long s, long earliest) {
        return Plan.staticPlan(v(g, s), earliest, Mode.REPLICATE, 2, 4, new Parallelism(2, 1, 1));
    }

    @Test
    void offersOnlyLinkedPlansAsNewest() {
        PlanStore st = new PlanStore(8);
        st.offer(plan(1, 1, 0), null);
        st.offer(plan(1, 3, 0), v(1, 2)); // 1.2 was lost
        assertThat(st.newestEligible(1, 100)).isEqualTo(v(1, 1));
        assertThat(st.hasGap()).isTrue();
        assertThat(st.newestLinkedPrefix()).isEqualTo(v(1, 1));
        st.offer(plan(1, 2, 0), v(1, 1)); // the resync fills the gap
        assertThat(st.newestEligible(1, 100)).isEqualTo(v(1, 3));
        assertThat(st.hasGap()).isFalse();
    }

    @Test
    void ignoresDuplicatesAndPlansBelowTheFloor() {
        PlanStore st = new PlanStore(8);
        assertThat(st.offer(plan(1, 5, 0), null)).isTrue();
        assertThat(st.offer(plan(1, 5, 0), null)).isFalse();
        assertThat(st.offer(plan(1, 4, 0), v(1, 3))).as("older than a chain start").isFalse();
        st.offer(plan(1, 6, 0), v(1, 5));
        st.raiseFloor(v(1, 6));
        assertThat(st.versions()).containsExactly(v(1, 6));
        assertThat(st.newestEligible(1, 0)).as("predecessor below the floor counts as linked").isEqualTo(v(1, 6));
    }

    @Test
    void aChainStartDropsEverythingOlder() {
        PlanStore st = new PlanStore(8);
        st.offer(plan(1, 1, 0), null);
        st.offer(plan(1, 2, 0), v(1, 1));
        st.offer(plan(1, 70, 0), null); // a restarted balancer's first plan
        assertThat(st.versions()).containsExactly(v(1, 70));
        assertThat(st.oldest()).isEqualTo(v(1, 70));
    }

    @Test
    void respectsGenerationAndEarliestStep() {
        PlanStore st = new PlanStore(8);
        st.offer(plan(1, 1, 0), null);
        st.offer(plan(2, 2, 50), v(1, 1));
        assertThat(st.newestEligible(2, 49)).isNull();
        assertThat(st.newestEligible(2, 50)).isEqualTo(v(2, 2));
        assertThat(st.newestEligible(1, 1000)).isEqualTo(v(1, 1));
        assertThat(st.newestEligible(3, 1000)).isNull();
    }

    @Test
    void capacityDropsTheOldestAndCountsIt() {
        PlanStore st = new PlanStore(3);
        st.offer(plan(1, 1, 0), null);
        for (int s = 2; s <= 6; s++) {
            st.offer(plan(1, s, 0), v(1, s - 1));
        }
        assertThat(st.versions()).containsExactly(v(1, 4), v(1, 5), v(1, 6));
        assertThat(st.droppedByCapacity()).isEqualTo(3);
        assertThat(st.newestEligible(1, 0)).isEqualTo(v(1, 6));
    }
}
