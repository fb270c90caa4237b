package dev.ballast.agent.wire;

import dev.ballast.agent.proto.LoadReport;
import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonException;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.contracts.plan.PlanVersions;

import java.util.List;
import java.util.Map;

/**
 * Parses and checks the trainer API's load report (docs/protocol.md, "POST /v1/loads") into the wire message.
 * Everything is checked before anything is kept: malformed JSON, missing or non-integer fields, negative or
 * oversized counts, ragged rows, too many counts, timings that are not finite numbers >= 0, and (once the balancer
 * has told the model shape) the shape.
 */
public final class ReportParser {
    /** A parsed report plus the plan the rank says it used (null when not given). */
    public record Parsed(LoadReport report, PlanVersion adopted) {
    }

    /** The optional timings' names in the trainer API. */
    public static final String STEP_SECONDS = "stepSeconds";
    public static final String COMPUTE_SECONDS = "computeSeconds";

    private ReportParser() {
    }

    /**
     * @param layers  model layers, or 0 when not known yet
     * @param experts experts per layer, or 0 when not known yet
     */
    public static Parsed parse(String body, int layers, int experts) throws BadReportException {
        Object root;
        try {
            root = Json.parse(body);
        } catch (JsonException e) {
            throw new BadReportException(400, "malformed JSON: " + e.getMessage());
        }
        if (!(root instanceof Map<?, ?> m)) {
            throw new BadReportException(400, "the body must be a JSON object");
        }
        long generation = nonNegative(m, "worldGeneration", true);
        long step = nonNegative(m, "step", true);
        long rank = nonNegative(m, "gpuRank", true);
        long firstLayer = m.containsKey("firstLayer") ? nonNegative(m, "firstLayer", true) : 0;
        if (rank > Integer.MAX_VALUE || firstLayer > Integer.MAX_VALUE) {
            throw new BadReportException(400, "gpuRank and firstLayer must fit in 32 bits");
        }
        PlanVersion adopted = null;
        Object a = m.get("adopted");
        if (a != null && a != Json.NULL) {
            if (!(a instanceof String s)) {
                throw new BadReportException(400, "field \"adopted\" must be a string like \"3.17\"");
            }
            adopted = parseVersion(s);
        }
        Double stepSeconds = seconds(m, STEP_SECONDS);
        Double computeSeconds = seconds(m, COMPUTE_SECONDS);
        Object c = m.get("counts");
        if (!(c instanceof List<?> rows)) {
            throw new BadReportException(400, c == null ? "missing field \"counts\"" : "field \"counts\" must be an array of per-layer arrays");
        }
        if (rows.isEmpty()) {
            throw new BadReportException(400, "field \"counts\" has no layers");
        }
        if (!(rows.get(0) instanceof List<?> first)) {
            throw new BadReportException(400, "counts[0] must be an array of per-expert counts");
        }
        int width = first.size();
        if (width == 0) {
            throw new BadReportException(400, "counts[0] is empty");
        }
        if ((long) width * rows.size() > Protocol.MAX_REPORT_COUNTS) {
            throw new BadReportException(413, "report has " + ((long) width * rows.size()) + " counts, the limit is "
                    + Protocol.MAX_REPORT_COUNTS);
        }
        if (experts > 0 && width != experts) {
            throw new BadReportException(400, "counts[0] has " + width + " experts, the model has " + experts);
        }
        if (layers > 0 && firstLayer + rows.size() > layers) {
            throw new BadReportException(400, "layers " + firstLayer + ".." + (firstLayer + rows.size() - 1)
                    + " exceed the model's " + layers + " layers");
        }
        LoadReport.Builder b = LoadReport.newBuilder().setWorldGeneration(generation).setStep(step)
                .setGpuRank((int) rank).setFirstLayer((int) firstLayer).setLayers(rows.size()).setExperts(width);
        if (stepSeconds != null) {
            b.setStepSeconds(stepSeconds);
        }
        if (computeSeconds != null) {
            b.setComputeSeconds(computeSeconds);
        }
        for (int l = 0; l < rows.size(); l++) {
            if (!(rows.get(l) instanceof List<?> row)) {
                throw new BadReportException(400, "counts[" + l + "] must be an array of per-expert counts");
            }
            if (row.size() != width) {
                throw new BadReportException(400, "counts[" + l + "] has " + row.size() + " entries, counts[0] has " + width);
            }
            for (int e = 0; e < width; e++) {
                Object x = row.get(e);
                if (!(x instanceof Long v)) {
                    throw new BadReportException(400, "counts[" + l + "][" + e + "] must be an integer, got " + x);
                }
                if (v < 0) {
                    throw new BadReportException(400, "counts[" + l + "][" + e + "] is negative (" + v + ")");
                }
                if (v > Protocol.MAX_COUNT) {
                    throw new BadReportException(400, "counts[" + l + "][" + e + "] = " + v + " exceeds " + Protocol.MAX_COUNT);
                }
                b.addCounts(v);
            }
        }
        return new Parsed(b.build(), adopted);
    }

    /** Checks a wire report against the model shape and the counts' own length and range. */
    public static void check(LoadReport r, int firstLayer, int layers, int experts) throws BadReportException {
        if ((long) r.getLayers() * r.getExperts() > Protocol.MAX_REPORT_COUNTS) {
            throw new BadReportException(413, "report of rank " + r.getGpuRank() + " has " + r.getLayers() + "×" + r.getExperts()
                    + " counts, the limit is " + Protocol.MAX_REPORT_COUNTS);
        }
        if (r.getExperts() != experts) {
            throw new BadReportException(400, "report of rank " + r.getGpuRank() + " has " + r.getExperts() + " experts, the model has " + experts);
        }
        if (r.getFirstLayer() != firstLayer || r.getLayers() != layers) {
            throw new BadReportException(400, "report of rank " + r.getGpuRank() + " covers layers " + r.getFirstLayer() + "+"
                    + r.getLayers() + ", its pipeline stage has layers " + firstLayer + "+" + layers);
        }
        if (r.getCountsCount() != layers * experts) {
            throw new BadReportException(400, "report of rank " + r.getGpuRank() + " has " + r.getCountsCount()
                    + " counts, expected layers × experts = " + (layers * experts));
        }
        if (r.hasStepSeconds() && !validSeconds(r.getStepSeconds())) {
            throw new BadReportException(400, "report of rank " + r.getGpuRank() + ": " + STEP_SECONDS + " = "
                    + r.getStepSeconds() + " is not a finite number of seconds >= 0");
        }
        if (r.hasComputeSeconds() && !validSeconds(r.getComputeSeconds())) {
            throw new BadReportException(400, "report of rank " + r.getGpuRank() + ": " + COMPUTE_SECONDS + " = "
                    + r.getComputeSeconds() + " is not a finite number of seconds >= 0");
        }
        for (int i = 0; i < r.getCountsCount(); i++) {
            long v = r.getCounts(i);
            if (v < 0 || v > Protocol.MAX_COUNT) {
                throw new BadReportException(400, "report of rank " + r.getGpuRank() + ": count " + i + " = "
                        + Long.toUnsignedString(v) + " is outside [0, " + Protocol.MAX_COUNT + "]");
            }
        }
    }

    /** {@link PlanVersions#parse}, refused as a bad request. */
    public static PlanVersion parseVersion(String s) throws BadReportException {
        try {
            return PlanVersions.parse(s);
        } catch (IllegalArgumentException e) {
            throw new BadReportException(400, e.getMessage());
        }
    }

    /** An optional timing: null when absent (or JSON null), else a finite number of seconds >= 0. */
    private static Double seconds(Map<?, ?> m, String key) throws BadReportException {
        Object v = m.get(key);
        if (v == null || v == Json.NULL) {
            return null;
        }
        if (!(v instanceof Number n) || !validSeconds(n.doubleValue())) {
            throw new BadReportException(400, "field \"" + key + "\" must be a finite number of seconds >= 0, got " + v);
        }
        return n.doubleValue();
    }

    private static boolean validSeconds(double s) {
        return Double.isFinite(s) && s >= 0;
    }

    private static long nonNegative(Map<?, ?> m, String key, boolean required) throws BadReportException {
        Object v = m.get(key);
        if (v == null) {
            if (required) {
                throw new BadReportException(400, "missing field \"" + key + "\"");
            }
            return 0;
        }
        if (!(v instanceof Long l)) {
            throw new BadReportException(400, "field \"" + key + "\" must be an integer, got " + v);
        }
        if (l < 0) {
            throw new BadReportException(400, "field \"" + key + "\" is negative (" + l + ")");
        }
        return l;
    }
}
