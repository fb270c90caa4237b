package dev.ballast.agent.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.ballast.agent.proto.BalancerMessage;
import dev.ballast.agent.proto.LoadReport;
import dev.ballast.agent.proto.PlanMessage;
import dev.ballast.agent.proto.SidecarHealth;
import dev.ballast.agent.proto.Welcome;
import dev.ballast.agent.wire.BadReportException;
import dev.ballast.agent.wire.Protocol;
import dev.ballast.agent.wire.ReportParser;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.codec.PlanBinary;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import org.junit.jupiter.api.Test;

/** What the sidecar measures of its data path and sends in SidecarHealth (docs/protocol.md "Sidecar health"). */
class SidecarHealthTest {
    long now;          // the sidecar's monotonic clock
    long wall = 1_000_000_000_000L; // unix nanos
    final SidecarCore core = new SidecarCore(new SidecarIdentity("j", "ns", 0, "j-worker-0", "t"), 8, 3, () -> now,
            () -> wall);

    void welcome(boolean acceptsHealth) {
        core.onBalancerMessage(BalancerMessage.newBuilder().setWelcome(Welcome.newBuilder().setLayers(1).setExperts(2)
                .setGpusPerWorker(1).setAcceptsHealth(acceptsHealth)).build());
    }

    void report(long step) throws BadReportException {
        core.accept(new ReportParser.Parsed(LoadReport.newBuilder().setWorldGeneration(1).setStep(step).setGpuRank(0)
                .setFirstLayer(0).setLayers(1).setExperts(2).addCounts(1).addCounts(2).build(), null));
    }

    void plan(long sequence, long publishedUnixNanos) {
        Plan p = Plan.staticPlan(new PlanVersion(1, sequence), 0, Mode.REPLICATE, 1, 2, new Parallelism(1, 1, 1));
        PlanMessage.Builder m = PlanMessage.newBuilder().setVersion(Protocol.toWire(p.version()))
                .setEarliestStep(p.earliestStep()).setPayload(ByteString.copyFrom(PlanBinary.encode(p)))
                .setFingerprint(PlanBinary.fingerprint(p)).setPublishedUnixNanos(publishedUnixNanos);
        if (sequence > 1) {
            m.setPrevious(Protocol.toWire(new PlanVersion(1, sequence - 1)));
        }
        core.onBalancerMessage(BalancerMessage.newBuilder().setPlan(m).build());
    }

    @Test
    void reportWaitsPlanDelaysAndDropsAreMeasuredPerInterval() throws Exception {
        core.onConnected();
        welcome(true);
        report(0);
        now += 30_000_000L; // 30 ms in the outbox
        report(1);
        now += 10_000_000L;
        assertThat(core.pollOutbound().getReport().getStep()).isZero();
        assertThat(core.pollOutbound().getReport().getStep()).isEqualTo(1);
        for (long step = 2; step < 7; step++) {
            report(step); // capacity 3: steps 2 and 3 are dropped
        }
        plan(1, wall - 1_000_000_000L); // published before this stream opened: a resend, not measured
        plan(2, wall + 5_000_000L);
        wall += 25_000_000L; // 20 ms after the balancer stamped it
        plan(3, wall - 20_000_000L);
        plan(3, wall - 20_000_000L); // a duplicate is not a new plan

        SidecarHealth h = core.healthMessage().getHealth();
        assertThat(h.getReportsSent()).isEqualTo(2);
        assertThat(h.getReportLatencySecondsSum()).isCloseTo(0.05, org.assertj.core.api.Assertions.within(1e-12));
        assertThat(h.getReportLatencyMaxSeconds()).isCloseTo(0.04, org.assertj.core.api.Assertions.within(1e-12));
        assertThat(h.getReportsDropped()).isEqualTo(2);
        assertThat(h.getReportsQueued()).isEqualTo(3);
        assertThat(h.getPlansReceived()).as("plans 2 and 3").isEqualTo(2);
        assertThat(h.getPlanLatencyMaxSeconds()).isCloseTo(0.02, org.assertj.core.api.Assertions.within(1e-12));
        assertThat(h.getPlanLatencySecondsSum()).as("plan 2 arrived before its stamp: clock skew counts as 0")
                .isCloseTo(0.02, org.assertj.core.api.Assertions.within(1e-12));

        SidecarHealth next = core.healthMessage().getHealth();
        assertThat(next.getReportsSent()).as("a new interval").isZero();
        assertThat(next.getReportsDropped()).isZero();
        assertThat(next.getPlansReceived()).isZero();
        assertThat(next.getReportsQueued()).isEqualTo(3);
    }

    @Test
    void noHealthForABalancerThatDidNotAskOrWhileDisconnected() {
        assertThat(core.healthMessage()).isNull();
        core.onConnected();
        welcome(false);
        assertThat(core.healthMessage()).as("an older balancer would refuse the unknown kind").isNull();
        welcome(true);
        assertThat(core.healthMessage()).isNotNull();
        core.onDisconnected();
        assertThat(core.healthMessage()).isNull();
    }
}
