package dev.ballast.client;

/**
 * What one rank measured of one step, sent with its load report (docs/protocol.md, "POST /v1/loads"):
 * {@code stepNanos} the step's wall time, {@code computeNanos} its compute time outside communication; either may be
 * {@link #NOT_MEASURED}. The balancer reports the slowest rank's times under the static layout and under its plan
 * (status.balancer.measured).
 */
public record StepTiming(long stepNanos, long computeNanos) {
    public static final long NOT_MEASURED = -1;

    public StepTiming {
        if (stepNanos < NOT_MEASURED) {
            throw new IllegalArgumentException("stepSeconds must be >= 0, got " + stepNanos + " ns");
        }
        if (computeNanos < NOT_MEASURED) {
            throw new IllegalArgumentException("computeSeconds must be >= 0, got " + computeNanos + " ns");
        }
    }

    /** Both times in seconds, each a finite number >= 0 (otherwise IllegalArgumentException naming it). */
    public static StepTiming ofSeconds(double stepSeconds, double computeSeconds) {
        return new StepTiming(nanos("stepSeconds", stepSeconds), nanos("computeSeconds", computeSeconds));
    }

    /** {@code seconds} rounded to the nanosecond; IllegalArgumentException naming {@code field} unless finite and >= 0. */
    static long nanos(String field, double seconds) {
        if (!Double.isFinite(seconds) || seconds < 0) {
            throw new IllegalArgumentException(field + " must be a finite number of seconds >= 0, got " + seconds);
        }
        return Math.round(seconds * 1e9);
    }
}
