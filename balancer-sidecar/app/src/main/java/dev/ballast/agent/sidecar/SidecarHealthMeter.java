package dev.ballast.agent.sidecar;

import dev.ballast.agent.proto.SidecarHealth;

/**
 * What the sidecar measures of its own data path for the balancer's metrics (docs/protocol.md "Sidecar health"):
 * how long reports wait before they go to the stream, how long plans take from publication to this sidecar, and
 * the reports dropped from the full outbox. Collects one interval at a time: {@link #take} returns the interval's
 * counts and starts the next, so the balancer adds deltas and never counts an interval twice. Not thread-safe; the
 * owner ({@link SidecarCore}) serialises.
 */
final class SidecarHealthMeter {
    private long reports;
    private double reportSeconds;
    private double reportMax;
    private long plans;
    private double planSeconds;
    private double planMax;
    private long droppedBefore;

    /** A report handed to the stream {@code nanos} after the trainer's call was accepted. */
    void reportSent(long nanos) {
        double s = Math.max(0, nanos) / 1e9;
        reports++;
        reportSeconds += s;
        reportMax = Math.max(reportMax, s);
    }

    /**
     * A new plan received {@code nanos} after the balancer stamped it (two machines' wall clocks: a negative
     * difference is clock skew and counts as 0).
     */
    void planReceived(long nanos) {
        double s = Math.max(0, nanos) / 1e9;
        plans++;
        planSeconds += s;
        planMax = Math.max(planMax, s);
    }

    /** The interval's health message; {@code droppedTotal} is the outbox's drop count since the sidecar started. */
    SidecarHealth take(long droppedTotal, int queued) {
        SidecarHealth h = SidecarHealth.newBuilder().setReportsSent(reports).setReportLatencySecondsSum(reportSeconds)
                .setReportLatencyMaxSeconds(reportMax).setReportsDropped(droppedTotal - droppedBefore)
                .setPlansReceived(plans).setPlanLatencySecondsSum(planSeconds).setPlanLatencyMaxSeconds(planMax)
                .setReportsQueued(queued).build();
        reports = 0;
        reportSeconds = 0;
        reportMax = 0;
        plans = 0;
        planSeconds = 0;
        planMax = 0;
        droppedBefore = droppedTotal;
        return h;
    }
}
