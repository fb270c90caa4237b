package dev.ballast.client;

import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.plan.PlanVersions;
import dev.ballast.contracts.vectors.VectorFiles;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** contracts/vectors/load-reports.json: the report body the client writes, shared with the Python client. */
class ReportJsonVectorsTest {
    static final Map<String, Object> VECTORS = VectorFiles.load("load-reports.json");

    @Test
    void everyValidReportEncodesToItsCanonicalBody() {
        List<Map<String, Object>> valid = VectorFiles.cases(VECTORS, "valid");
        assertThat(valid).hasSizeGreaterThanOrEqualTo(5);
        for (Map<String, Object> v : valid) {
            assertThat(ReportJson.encode(report(JsonFields.object(v.get("report"), "report"))))
                    .as(JsonFields.requireString(v, "name")).isEqualTo(JsonFields.requireString(v, "canonical"));
        }
    }

    @Test
    void badTimingsAreRefusedNamingTheField() {
        List<Map<String, Object>> bad = VectorFiles.cases(VECTORS, "badTimings");
        assertThat(bad).hasSizeGreaterThanOrEqualTo(5);
        for (Map<String, Object> b : bad) {
            String[] mentions = JsonFields.requireArray(b, "errorMentions").toArray(String[]::new);
            assertThatThrownBy(() -> StepTiming.ofSeconds(seconds(b.get("stepSeconds")), seconds(b.get("computeSeconds"))))
                    .as(JsonFields.requireString(b, "name")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContainingAll(mentions);
        }
    }

    /** The vector's fields as the client's report (the timings through the client's own conversion). */
    static StepLoads report(Map<String, Object> r) {
        List<Object> rows = JsonFields.requireArray(r, "counts");
        long[][] counts = rows.stream().map(row -> ((List<?>) row).stream().mapToLong(x -> (Long) x).toArray())
                .toArray(long[][]::new);
        StepTiming timing = r.containsKey("stepSeconds") || r.containsKey("computeSeconds")
                ? new StepTiming(nanosOrNotMeasured(r, "stepSeconds"), nanosOrNotMeasured(r, "computeSeconds")) : null;
        return new StepLoads(JsonFields.requireLong(r, "worldGeneration"), JsonFields.requireLong(r, "step"),
                (int) JsonFields.requireLong(r, "gpuRank"), (int) JsonFields.requireLong(r, "firstLayer"), counts,
                r.containsKey("adopted") ? PlanVersions.parse(JsonFields.requireString(r, "adopted")) : null, timing);
    }

    private static long nanosOrNotMeasured(Map<String, Object> r, String field) {
        return r.containsKey(field) ? StepTiming.nanos(field, seconds(r.get(field))) : StepTiming.NOT_MEASURED;
    }

    /** A number, or one of the strings "NaN", "Infinity", "-Infinity" that JSON cannot write as numbers. */
    static double seconds(Object v) {
        return v instanceof Number n ? n.doubleValue() : Double.parseDouble((String) v);
    }
}
