package dev.ballast.client;

import java.nio.charset.StandardCharsets;

/**
 * The trainer API's load-report body (docs/protocol.md, "POST /v1/loads"):
 * {@code {"worldGeneration":G,"step":S,"gpuRank":R,"firstLayer":F[,"adopted":"g.s"],"counts":[[..],..]}}, no spaces.
 * The sender writes it straight into a reused byte buffer.
 */
public final class ReportJson {
    private static final byte[] GENERATION = ascii("{\"worldGeneration\":");
    private static final byte[] STEP = ascii(",\"step\":");
    private static final byte[] GPU_RANK = ascii(",\"gpuRank\":");
    private static final byte[] FIRST_LAYER = ascii(",\"firstLayer\":");
    private static final byte[] ADOPTED = ascii(",\"adopted\":\"");
    private static final byte[] COUNTS = ascii(",\"counts\":[");
    /** The fixed text plus five longs and the adopted version, generously. */
    private static final int HEADER_BYTES = 256;

    private ReportJson() {
    }

    public static String encode(StepLoads r) {
        FlatReport f = new FlatReport();
        f.fill(r.worldGeneration(), r.step(), r.gpuRank(), r.firstLayer(), r.counts(), r.counts()[0].length, r.adopted());
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

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
