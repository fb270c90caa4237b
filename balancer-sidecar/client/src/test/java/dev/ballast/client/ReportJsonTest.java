package dev.ballast.client;

import dev.ballast.contracts.json.Json;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReportJsonTest {
    @Test
    void encodesTheTrainerApiBody() {
        StepLoads r = new StepLoads(3, 120, 5, 0, new long[][] {{1, 2}, {3, 0}}, new dev.ballast.contracts.plan.PlanVersion(3, 7));
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) Json.parse(ReportJson.encode(r));
        assertThat(m).containsEntry("worldGeneration", 3L).containsEntry("step", 120L).containsEntry("gpuRank", 5L)
                .containsEntry("adopted", "3.7").containsEntry("counts", List.of(List.of(1L, 2L), List.of(3L, 0L)));
    }

    @Test
    void theByteEncoderWritesExactlyWhatAStringBuilderWould() {
        java.util.Random rnd = new java.util.Random(42);
        long[] edge = {0, 1, 9, 10, 99, 100, 1L << 48, Long.MAX_VALUE, 1_000_000_007L};
        for (int n = 0; n < 200; n++) {
            int layers = 1 + rnd.nextInt(8);
            int experts = 1 + rnd.nextInt(70);
            long[][] c = new long[layers][experts];
            for (long[] row : c) {
                for (int e = 0; e < experts; e++) {
                    row[e] = rnd.nextBoolean() ? edge[rnd.nextInt(edge.length)] : rnd.nextLong() >>> (1 + rnd.nextInt(63));
                }
            }
            dev.ballast.contracts.plan.PlanVersion adopted = rnd.nextBoolean() ? null
                    : new dev.ballast.contracts.plan.PlanVersion(rnd.nextInt(1000), rnd.nextLong() >>> 1);
            long[] nanos = {0, 1, 10, 999_999_999, 1_000_000_000, 250_000_000, 3_000_000_001L, rnd.nextLong() >>> 8};
            StepTiming timing = rnd.nextInt(3) == 0 ? null : new StepTiming(
                    rnd.nextInt(4) == 0 ? StepTiming.NOT_MEASURED : nanos[rnd.nextInt(nanos.length)],
                    rnd.nextInt(4) == 0 ? StepTiming.NOT_MEASURED : nanos[rnd.nextInt(nanos.length)]);
            StepLoads r = new StepLoads(rnd.nextLong() >>> 1, rnd.nextInt(1 << 30), rnd.nextInt(4096), rnd.nextInt(100), c,
                    adopted, timing);
            assertThat(ReportJson.encode(r)).isEqualTo(reference(r));
        }
    }

    /** The body as the client wrote it before the byte encoder (StringBuilder and Long.toString; seconds by BigDecimal). */
    private static String reference(StepLoads r) {
        StringBuilder sb = new StringBuilder("{\"worldGeneration\":").append(r.worldGeneration())
                .append(",\"step\":").append(r.step()).append(",\"gpuRank\":").append(r.gpuRank())
                .append(",\"firstLayer\":").append(r.firstLayer());
        if (r.adopted() != null) {
            sb.append(",\"adopted\":\"").append(r.adopted()).append('"');
        }
        if (r.timing() != null && r.timing().stepNanos() != StepTiming.NOT_MEASURED) {
            sb.append(",\"stepSeconds\":").append(seconds(r.timing().stepNanos()));
        }
        if (r.timing() != null && r.timing().computeNanos() != StepTiming.NOT_MEASURED) {
            sb.append(",\"computeSeconds\":").append(seconds(r.timing().computeNanos()));
        }
        sb.append(",\"counts\":[");
        for (int l = 0; l < r.counts().length; l++) {
            sb.append(l > 0 ? ",[" : "[");
            for (int e = 0; e < r.counts()[l].length; e++) {
                sb.append(e > 0 ? "," : "").append(r.counts()[l][e]);
            }
            sb.append(']');
        }
        return sb.append("]}").toString();
    }

    private static String seconds(long nanos) {
        String s = java.math.BigDecimal.valueOf(nanos, 9).stripTrailingZeros().toPlainString();
        return s.contains(".") ? s : s + ".0";
    }

    @Test
    void refusesRaggedOrNegativeCountsAtTheCaller() {
        assertThatThrownBy(() -> new StepLoads(1, 1, 0, 0, new long[][] {{1, 2}, {3}}, null)).hasMessageContaining("layer 1 has 1 counts");
        assertThatThrownBy(() -> new StepLoads(1, 1, 0, 0, new long[][] {{1, -2}}, null)).hasMessageContaining("negative");
    }
}
