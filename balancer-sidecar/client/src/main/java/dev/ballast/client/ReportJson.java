package dev.ballast.client;

import java.nio.charset.StandardCharsets;

/**
 * The trainer API's load-report body (docs/protocol.md, "POST /v1/loads"):
 * {@code {"worldGeneration":G,"step":S,"gpuRank":R,"firstLayer":F[,"adopted":"g.s"][,"stepSeconds":T]
 * [,"computeSeconds":T],"counts":[[..],..]}}, no spaces; seconds in plain decimal to the nanosecond, trailing zeros
 * trimmed ({@code 0.25}, {@code 2.0}). The canonical form is pinned by contracts/vectors/load-reports.json. The
 * sender writes it straight into a reused byte buffer.
 */
public final class ReportJson {
    private static final byte[] GENERATION = ascii("{\"worldGeneration\":");
    private static final byte[] STEP = ascii(",\"step\":");
    private static final byte[] GPU_RANK = ascii(",\"gpuRank\":");
    private static final byte[] FIRST_LAYER = ascii(",\"firstLayer\":");
    private static final byte[] ADOPTED = ascii(",\"adopted\":\"");
    private static final byte[] STEP_SECONDS = ascii(",\"stepSeconds\":");
    private static final byte[] COMPUTE_SECONDS = ascii(",\"computeSeconds\":");
    private static final byte[] COUNTS = ascii(",\"counts\":[");
    /** The fixed text, the longs, the adopted version and the two timings, generously. */
    private static final int HEADER_BYTES = 384;

    private ReportJson() {
    }

    public static String encode(StepLoads r) {
        FlatReport f = new FlatReport();
        f.fill(r.worldGeneration(), r.step(), r.gpuRank(), r.firstLayer(), r.counts(), r.counts()[0].length, r.adopted(),
                r.timing());
        AsciiBuffer out = new AsciiBuffer();
        encode(f, out);
        return out.toString();
    }

    /** Replaces {@code out}'s content with the body of {@code r}. */
    static void encode(FlatReport r, AsciiBuffer out) {
        out.clear();
        // every count takes at most 20 digits and a separator; every row two brackets
        out.reserve(HEADER_BYTES + r.layers * (2 + r.experts * 21));
        out.put(GENERATION).put(r.worldGeneration).put(STEP).put(r.step).put(GPU_RANK).put(r.gpuRank)
                .put(FIRST_LAYER).put(r.firstLayer);
        if (r.adopted != null) {
            out.put(ADOPTED).put(r.adopted.worldGeneration()).put('.').put(r.adopted.sequence()).put('"');
        }
        if (r.stepNanos != StepTiming.NOT_MEASURED) {
            putSeconds(out.put(STEP_SECONDS), r.stepNanos);
        }
        if (r.computeNanos != StepTiming.NOT_MEASURED) {
            putSeconds(out.put(COMPUTE_SECONDS), r.computeNanos);
        }
        out.put(COUNTS);
        long[] c = r.counts;
        for (int l = 0; l < r.layers; l++) {
            if (l > 0) {
                out.put(',');
            }
            out.put('[');
            int base = l * r.experts;
            for (int e = 0; e < r.experts; e++) {
                if (e > 0) {
                    out.put(',');
                }
                out.put(c[base + e]);
            }
            out.put(']');
        }
        out.put(']').put('}');
    }

    /** {@code nanos} as seconds: whole seconds, a point, the nanoseconds without trailing zeros (at least one digit). */
    private static void putSeconds(AsciiBuffer out, long nanos) {
        out.put(nanos / 1_000_000_000L).put('.');
        long frac = nanos % 1_000_000_000L;
        int digits = 9;
        while (digits > 1 && frac % 10 == 0) {
            frac /= 10;
            digits--;
        }
        for (long p = pow10(digits - 1); p > 0; p /= 10) {
            out.put((char) ('0' + (frac / p) % 10));
        }
    }

    private static long pow10(int n) {
        long p = 1;
        for (int i = 0; i < n; i++) {
            p *= 10;
        }
        return p;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
