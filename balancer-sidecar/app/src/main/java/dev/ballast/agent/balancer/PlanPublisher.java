package dev.ballast.agent.balancer;

import com.google.protobuf.ByteString;
import dev.ballast.agent.proto.BalancerMessage;
import dev.ballast.agent.proto.PlanMessage;
import dev.ballast.agent.proto.Retention;
import dev.ballast.agent.wire.Protocol;
import dev.ballast.planner.codec.PlanBinary;
import dev.ballast.planner.codec.PlanJson;
import dev.ballast.planner.model.Plan;
import dev.ballast.contracts.plan.PlanVersion;

import java.util.List;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The plans this balancer published and still retains for sidecars that resync: each published plan's message
 * (binary payload, fingerprint, a link to the previous one), the retention window announced to sidecars (floor =
 * oldest retained, newest = last published), and the newest plan as JSON for the dashboard. Not thread-safe, except
 * {@link #newestJson}.
 */
final class PlanPublisher {
    /** Plans kept for resyncs; sidecars keep at most PlanStore.DEFAULT_CAPACITY. */
    static final int RETAINED_PLANS = 32;

    private final LongSupplier unixNanos;
    /** A retained plan and the message that announced it. */
    private record Retained(Plan plan, PlanMessage message) {
    }

    private final TreeMap<PlanVersion, Retained> retained = new TreeMap<>();
    private PlanVersion newest;
    private long published;
    private volatile String newestJson;

    /** {@code unixNanos}: wall-clock time stamped on each plan (sidecars report how long plans took to reach them). */
    PlanPublisher(LongSupplier unixNanos) {
        this.unixNanos = unixNanos;
    }

    /** Retains {@code plan} and returns the message that announces it; the oldest plans beyond the window go. */
    BalancerMessage publish(Plan plan) {
        PlanMessage.Builder pm = PlanMessage.newBuilder().setVersion(Protocol.toWire(plan.version()))
                .setEarliestStep(plan.earliestStep()).setPayload(ByteString.copyFrom(PlanBinary.encode(plan)))
                .setFingerprint(PlanBinary.fingerprint(plan)).setPublishedUnixNanos(unixNanos.getAsLong());
        if (newest != null) {
            pm.setPrevious(Protocol.toWire(newest));
        }
        PlanMessage msg = pm.build();
        retained.put(plan.version(), new Retained(plan, msg));
        while (retained.size() > RETAINED_PLANS) {
            retained.pollFirstEntry();
        }
        newest = plan.version();
        newestJson = PlanJson.encode(plan);
        published++;
        return BalancerMessage.newBuilder().setPlan(msg).build();
    }

    /** Plans of generations before {@code generation} are of no use to anyone any more. */
    void dropGenerationsBefore(long generation) {
        retained.headMap(new PlanVersion(generation, 0)).clear();
    }

    /**
     * Every rank runs {@code oldestInUse} or newer: older plans are never needed again (the newest is always kept).
     * Returns whether any plan was dropped.
     */
    boolean retainFrom(PlanVersion oldestInUse) {
        int before = retained.size();
        while (retained.size() > 1 && retained.firstKey().compareTo(oldestInUse) < 0) {
            retained.pollFirstEntry();
        }
        return retained.size() != before;
    }

    BalancerMessage retention() {
        Retention.Builder r = Retention.newBuilder();
        if (!retained.isEmpty()) {
            r.setFloor(Protocol.toWire(retained.firstKey()));
        }
        if (newest != null) {
            r.setNewest(Protocol.toWire(newest));
        }
        return BalancerMessage.newBuilder().setRetention(r).build();
    }

    /** The retained plans after {@code after} (all of them when null), oldest first, for a resync. */
    List<BalancerMessage> retainedAfter(PlanVersion after) {
        return (after == null ? retained : retained.tailMap(after, false)).values().stream()
                .map(r -> BalancerMessage.newBuilder().setPlan(r.message()).build()).toList();
    }

    /** The retained plan {@code version}, or null when this balancer does not hold it. */
    Plan plan(PlanVersion version) {
        Retained r = retained.get(version);
        return r == null ? null : r.plan();
    }

    PlanVersion newest() {
        return newest;
    }

    long published() {
        return published;
    }

    /** The newest plan as ballast-plan/v1 JSON, or null; safe from any thread. */
    String newestJson() {
        return newestJson;
    }
}
