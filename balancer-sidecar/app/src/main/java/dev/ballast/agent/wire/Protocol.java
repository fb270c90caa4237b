package dev.ballast.agent.wire;

import dev.ballast.contracts.plan.PlanVersion;

/** Wire-protocol constants and conversions shared by both roles (docs/protocol.md). */
public final class Protocol {
    /** Bumped on every incompatible change of ballast_agent.proto's meaning. */
    public static final int VERSION = 1;
    /** Oldest sidecar protocol version this balancer still serves. */
    public static final int MIN_SUPPORTED = 1;
    /** Largest accepted load report: layers × experts counts (60 layers × 1024 experts fits). */
    public static final int MAX_REPORT_COUNTS = 1 << 16;
    /** Largest accepted trainer-API request body in bytes (a 65,536-count report is well under it). */
    public static final int MAX_HTTP_BODY_BYTES = 4 << 20;
    /** Largest gRPC message either side accepts. */
    public static final int MAX_GRPC_MESSAGE_BYTES = 16 << 20;
    /** Largest single count (2^48: far above any real per-step token count, and exact in every JSON reader). */
    public static final long MAX_COUNT = 1L << 48;

    private Protocol() {
    }

    public static dev.ballast.agent.proto.PlanVersion toWire(PlanVersion v) {
        return dev.ballast.agent.proto.PlanVersion.newBuilder()
                .setWorldGeneration(v.worldGeneration()).setSequence(v.sequence()).build();
    }

    public static PlanVersion fromWire(dev.ballast.agent.proto.PlanVersion v) {
        return new PlanVersion(v.getWorldGeneration(), v.getSequence());
    }
}
