package dev.ballast.agent.balancer;

import dev.ballast.agent.proto.BalancerMessage;
import dev.ballast.agent.proto.PlanMessage;
import dev.ballast.agent.wire.Protocol;
import dev.ballast.planner.codec.PlanBinary;
import dev.ballast.planner.codec.PlanJson;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.contracts.plan.PlanVersion;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PlanPublisherTest {
    final PlanPublisher publisher = new PlanPublisher(() -> 42L);

    static Plan plan(long generation, long sequence) {
        return Plan.staticPlan(new PlanVersion(generation, sequence), sequence * 10, Mode.REPLICATE, 2, 4, new Parallelism(4, 1, 1));
    }

    static PlanVersion version(dev.ballast.agent.proto.PlanVersion wire) {
        return Protocol.fromWire(wire);
    }

    @Test
    void eachPlanMessageCarriesThePayloadItsFingerprintAndThePreviousPlan() {
        PlanMessage first = publisher.publish(plan(1, 1)).getPlan();
        assertThat(first.hasPrevious()).as("an incarnation's first plan starts a chain").isFalse();
        assertThat(first.getPayload().toByteArray()).isEqualTo(PlanBinary.encode(plan(1, 1)));
        assertThat(first.getFingerprint()).isEqualTo(PlanBinary.fingerprint(plan(1, 1)));
        assertThat(first.getEarliestStep()).isEqualTo(10);
        assertThat(first.getPublishedUnixNanos()).isEqualTo(42);
        PlanMessage second = publisher.publish(plan(1, 2)).getPlan();
        assertThat(version(second.getPrevious())).isEqualTo(new PlanVersion(1, 1));
        assertThat(publisher.newest()).isEqualTo(new PlanVersion(1, 2));
        assertThat(publisher.published()).isEqualTo(2);
        assertThat(publisher.newestJson()).isEqualTo(PlanJson.encode(plan(1, 2)));
    }

    @Test
    void keepsTheNewestPlansWithinTheWindowAndAnnouncesIt() {
        assertThat(publisher.retention().getRetention().hasFloor()).isFalse();
        for (int s = 1; s <= PlanPublisher.RETAINED_PLANS + 3; s++) {
            publisher.publish(plan(1, s));
        }
        BalancerMessage r = publisher.retention();
        assertThat(version(r.getRetention().getFloor())).isEqualTo(new PlanVersion(1, 4));
        assertThat(version(r.getRetention().getNewest())).isEqualTo(new PlanVersion(1, PlanPublisher.RETAINED_PLANS + 3));
        assertThat(publisher.retainedAfter(null)).hasSize(PlanPublisher.RETAINED_PLANS);
        assertThat(publisher.retainedAfter(new PlanVersion(1, 33)))
                .extracting(m -> version(m.getPlan().getVersion())).containsExactly(new PlanVersion(1, 34), new PlanVersion(1, 35));
    }

    @Test
    void plansOlderThanEveryRanksAreDroppedButTheNewestStays() {
        for (int s = 1; s <= 3; s++) {
            publisher.publish(plan(1, s));
        }
        assertThat(publisher.retainFrom(new PlanVersion(1, 1))).isFalse();
        assertThat(publisher.retainFrom(new PlanVersion(1, 2))).isTrue();
        assertThat(version(publisher.retention().getRetention().getFloor())).isEqualTo(new PlanVersion(1, 2));
        assertThat(publisher.retainFrom(new PlanVersion(2, 0))).isTrue();
        assertThat(publisher.retainedAfter(null)).as("the newest is always kept").hasSize(1);
    }

    @Test
    void aNewGenerationDropsTheOlderOnesPlans() {
        publisher.publish(plan(1, 1));
        publisher.publish(plan(2, 2));
        publisher.dropGenerationsBefore(2);
        assertThat(publisher.retainedAfter(null)).extracting(m -> version(m.getPlan().getVersion()))
                .containsExactly(new PlanVersion(2, 2));
    }
}
