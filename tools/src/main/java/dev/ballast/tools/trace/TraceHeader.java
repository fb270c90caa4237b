package dev.ballast.tools.trace;

/** The first line of a ballast-trace/v1 file; {@code origin} may be null. */
public record TraceHeader(String model, int layers, int experts, int sources, int topK, String origin) {
    public static final String FORMAT = "ballast-trace/v1";

    public TraceHeader {
        if (layers <= 0 || experts <= 0 || sources <= 0 || topK <= 0 || topK > experts) {
            throw new IllegalArgumentException("trace header needs positive layers, experts, sources and 0 < topK <= experts");
        }
    }
}
