package dev.ballast.agent.balancer;

import dev.ballast.agent.proto.AdoptionReport;
import dev.ballast.agent.proto.ErrorNotice.Code;
import dev.ballast.agent.wire.Protocol;
import dev.ballast.contracts.plan.PlanVersion;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AdoptionTrackerTest {
    final AdoptionTracker tracker = new AdoptionTracker();

    static AdoptionReport adoption(long generation, int rank, long step, PlanVersion v) {
        return AdoptionReport.newBuilder().setWorldGeneration(generation).setGpuRank(rank).setStep(step)
                .setAdopted(Protocol.toWire(v)).build();
    }

    /** World generation 3 has 4 GPUs: pod 5 runs ranks 0 and 1 (node rank 0), pod 0 runs ranks 2 and 3. */
    void adopt(int rank, long step, PlanVersion v) {
        assertThat(tracker.record(rank < 2 ? 5 : 0, rank < 2 ? 0 : 1, adoption(3, rank, step, v))).isNull();
    }

    @Test
    void theOldestPlanInUseIsKnownOnceEveryRankReported() {
        tracker.reset(BalancerCoreTest.WORLD);
        adopt(0, 10, new PlanVersion(3, 2));
        adopt(1, 10, new PlanVersion(3, 2));
        adopt(2, 11, new PlanVersion(3, 2));
        assertThat(tracker.oldestInUse()).isNull();
        adopt(3, 12, new PlanVersion(3, 1));
        assertThat(tracker.oldestInUse()).isEqualTo(new PlanVersion(3, 1));
        adopt(3, 13, new PlanVersion(3, 2));
        assertThat(tracker.oldestInUse()).isEqualTo(new PlanVersion(3, 2));
        assertThat(tracker.lastAdoptedAt(new PlanVersion(3, 2))).isEqualTo(13);
        assertThat(tracker.lastAdoptedAt(new PlanVersion(3, 9))).isEqualTo(-1);
    }

    @Test
    void olderVersionsAndOtherWorldsAreIgnoredAndAnotherPodsRankIsRefused() {
        tracker.reset(BalancerCoreTest.WORLD);
        for (int rank = 0; rank < 4; rank++) {
            adopt(rank, 20, new PlanVersion(3, 5));
        }
        adopt(0, 21, new PlanVersion(3, 4)); // a reordered, older report
        assertThat(tracker.record(5, 0, adoption(2, 0, 22, new PlanVersion(2, 9)))).isNull();
        assertThat(tracker.oldestInUse()).isEqualTo(new PlanVersion(3, 5));
        assertThat(tracker.lastAdoptedAt(new PlanVersion(3, 5))).isEqualTo(20);
        assertThat(tracker.record(5, 0, adoption(3, 2, 23, new PlanVersion(3, 6))))
                .isEqualTo(new Refusal(Code.BAD_REPORT, "adoption of gpu rank 2 is not from pod index 5"));
        tracker.reset(BalancerCoreTest.WORLD);
        assertThat(tracker.oldestInUse()).as("a new world starts over").isNull();
    }
}
