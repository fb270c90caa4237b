package dev.ballast.client;

import dev.ballast.planner.json.Json;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReportJsonTest {
    @Test
    void encodesTheTrainerApiBody() {
        LoadReport r = new LoadReport(3, 120, 5, 0, new long[][] {{1, 2}, {3, 0}}, new dev.ballast.planner.model.PlanVersion(3, 7));
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) Json.parse(ReportJson.encode(r));
        assertThat(m).containsEntry("worldGeneration", 3L).containsEntry("step", 120L).containsEntry("gpuRank", 5L)
                .containsEntry("adopted", "3.7").containsEntry("counts", List.of(List.of(1L, 2L), List.of(3L, 0L)));
    }

    @Test
    void refusesRaggedOrNegativeCountsAtTheCaller() {
        assertThatThrownBy(() -> new LoadReport(1, 1, 0, 0, new long[][] {{1, 2}, {3}}, null)).hasMessageContaining("layer 1 has 1 counts");
        assertThatThrownBy(() -> new LoadReport(1, 1, 0, 0, new long[][] {{1, -2}}, null)).hasMessageContaining("negative");
    }

    @Test
    void reportCallReturnsWithoutASidecar() {
        // Nothing listens on this port: the call must still return at once and the report be dropped in the background.
        try (HttpSidecarClient c = new HttpSidecarClient("http://127.0.0.1:1")) {
            long t0 = System.nanoTime();
            for (int i = 0; i < 1000; i++) {
                c.report(new LoadReport(1, i, 0, 0, new long[][] {{1, 2, 3}}, null));
            }
            assertThat(System.nanoTime() - t0).as("1000 report calls").isLessThan(2_000_000_000L);
            assertThat(c.sentReports()).isZero();
        }
    }
}
