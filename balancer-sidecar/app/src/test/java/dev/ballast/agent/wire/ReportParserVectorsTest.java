package dev.ballast.agent.wire;

import dev.ballast.agent.proto.LoadReport;
import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.vectors.VectorFiles;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** contracts/vectors/load-reports.json from the sidecar's side: what the clients write parses to the same fields. */
class ReportParserVectorsTest {
    static final Map<String, Object> VECTORS = VectorFiles.load("load-reports.json");

    @Test
    void everyCanonicalBodyParsesToItsFields() throws Exception {
        for (Map<String, Object> v : VectorFiles.cases(VECTORS, "valid")) {
            String name = JsonFields.requireString(v, "name");
            Map<String, Object> want = JsonFields.object(v.get("report"), "report");
            ReportParser.Parsed p = ReportParser.parse(JsonFields.requireString(v, "canonical"), 0, 0);
            LoadReport r = p.report();
            assertThat(r.getWorldGeneration()).as(name).isEqualTo(want.get("worldGeneration"));
            assertThat(r.getStep()).as(name).isEqualTo(want.get("step"));
            assertThat((long) r.getGpuRank()).as(name).isEqualTo(want.get("gpuRank"));
            assertThat(String.valueOf(p.adopted())).as(name).isEqualTo(String.valueOf(want.get("adopted")));
            List<Long> counts = JsonFields.requireArray(want, "counts").stream()
                    .flatMap(row -> ((List<?>) row).stream().map(x -> (Long) x)).toList();
            assertThat(r.getCountsList()).as(name).isEqualTo(counts);
            assertSeconds(name, r.hasStepSeconds(), r.getStepSeconds(), want.get("stepSeconds"));
            assertSeconds(name, r.hasComputeSeconds(), r.getComputeSeconds(), want.get("computeSeconds"));
            ReportParser.check(r, r.getFirstLayer(), r.getLayers(), r.getExperts());
        }
    }

    /** Present exactly when the vector has it, and within the nanosecond the clients round to. */
    private static void assertSeconds(String name, boolean present, double parsed, Object want) {
        assertThat(present).as(name).isEqualTo(want != null);
        if (want != null) {
            assertThat(parsed).as(name).isCloseTo(((Number) want).doubleValue(), org.assertj.core.data.Offset.offset(0.6e-9));
        }
    }

    @Test
    void refusedBodiesGetTheirStatusAndNameTheField() {
        List<Map<String, Object>> refused = VectorFiles.cases(VECTORS, "refusedBodies");
        assertThat(refused).hasSizeGreaterThanOrEqualTo(4);
        for (Map<String, Object> b : refused) {
            String[] mentions = JsonFields.requireArray(b, "errorMentions").toArray(String[]::new);
            assertThatThrownBy(() -> ReportParser.parse(JsonFields.requireString(b, "body"), 0, 0))
                    .as(JsonFields.requireString(b, "name")).isInstanceOf(BadReportException.class)
                    .hasMessageContainingAll(mentions)
                    .satisfies(e -> assertThat((long) ((BadReportException) e).httpStatus()).isEqualTo(b.get("status")));
        }
    }

    @Test
    void theBalancerRefusesTimingsNoTrainerApiWouldPass() {
        LoadReport ok = LoadReport.newBuilder().setWorldGeneration(1).setStep(1).setGpuRank(2).setLayers(1)
                .setExperts(1).addCounts(1).build();
        assertThatThrownBy(() -> ReportParser.check(ok.toBuilder().setStepSeconds(Double.NaN).build(), 0, 1, 1))
                .hasMessageContaining("stepSeconds").hasMessageContaining("rank 2");
        assertThatThrownBy(() -> ReportParser.check(ok.toBuilder().setComputeSeconds(-1).build(), 0, 1, 1))
                .hasMessageContaining("computeSeconds");
    }
}
