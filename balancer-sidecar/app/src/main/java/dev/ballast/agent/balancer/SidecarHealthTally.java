package dev.ballast.agent.balancer;

import dev.ballast.agent.proto.ErrorNotice;
import dev.ballast.agent.proto.SidecarHealth;

import java.util.List;

/**
 * The job's sidecars' health messages (docs/protocol.md "Sidecar health") summed for the balancer's metrics: the
 * counts and latency sums of every interval any sidecar reported (the sidecars send deltas, so the totals only
 * grow, across reconnects and sidecar restarts), and the worst latency and queue of each connected sidecar's latest
 * interval. Per job, never per pod, so the metrics' cardinality does not grow with the world. Not thread-safe.
 */
public final class SidecarHealthTally {
    /** A sidecar's latest interval counts for the maxima while it is at most this old (two intervals). */
    static final long LATEST_FOR_NANOS = 10_000_000_000L;

    /**
     * The totals since this balancer started, and over the connected sidecars' latest intervals (at most
     * {@link #LATEST_FOR_NANOS} old) the longest report and plan latency (0 when none) and the reports queued.
     */
    public record Totals(long reportsSent, double reportSeconds, double reportMaxSeconds, long reportsDropped,
                  long plansReceived, double planSeconds, double planMaxSeconds, long reportsQueued) {
        public static final Totals NONE = new Totals(0, 0, 0, 0, 0, 0, 0, 0);
    }

    private long reportsSent;
    private double reportSeconds;
    private long reportsDropped;
    private long plansReceived;
    private double planSeconds;

    /** Adds sidecar {@code s}'s interval; returns why it is refused (nothing is added), or null. */
    Refusal record(SidecarSessions.Sidecar s, SidecarHealth h, long nowNanos) {
        for (double v : new double[] {h.getReportLatencySecondsSum(), h.getReportLatencyMaxSeconds(),
                h.getPlanLatencySecondsSum(), h.getPlanLatencyMaxSeconds()}) {
            if (!Double.isFinite(v) || v < 0) {
                return new Refusal(ErrorNotice.Code.PROTOCOL_VIOLATION,
                        "sidecar health with a latency that is not a finite number of seconds >= 0: " + v);
            }
        }
        reportsSent += h.getReportsSent();
        reportSeconds += h.getReportLatencySecondsSum();
        reportsDropped += h.getReportsDropped();
        plansReceived += h.getPlansReceived();
        planSeconds += h.getPlanLatencySecondsSum();
        s.latestHealth = h;
        s.latestHealthAt = nowNanos;
        return null;
    }

    Totals totals(List<SidecarSessions.Sidecar> connected, long nowNanos) {
        double reportMax = 0;
        double planMax = 0;
        long queued = 0;
        for (SidecarSessions.Sidecar s : connected) {
            SidecarHealth h = s.latestHealth;
            if (h == null || nowNanos - s.latestHealthAt > LATEST_FOR_NANOS) {
                continue;
            }
            reportMax = Math.max(reportMax, h.getReportLatencyMaxSeconds());
            planMax = Math.max(planMax, h.getPlanLatencyMaxSeconds());
            queued += h.getReportsQueued();
        }
        return new Totals(reportsSent, reportSeconds, reportMax, reportsDropped, plansReceived, planSeconds, planMax,
                queued);
    }
}
