package dev.ballast.agent.wire;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReportParserTest {
    static final String OK = "{\"worldGeneration\":1,\"step\":7,\"gpuRank\":3,\"counts\":[[1,2,3],[4,5,6]],\"adopted\":\"1.4\"}";

    @Test
    void parsesAValidReport() throws Exception {
        ReportParser.Parsed p = ReportParser.parse(OK, 2, 3);
        assertThat(p.report().getCountsList()).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        assertThat(p.report().getLayers()).isEqualTo(2);
        assertThat(p.adopted().toString()).isEqualTo("1.4");
    }

    @Test
    void refusesBadInputWithAClearMessage() {
        assertRefused("{\"worldGeneration\":1", 400, "malformed JSON");
        assertRefused("[1,2]", 400, "must be a JSON object");
        assertRefused(OK.replace("\"step\":7", "\"step\":-7"), 400, "\"step\" is negative");
        assertRefused(OK.replace("\"step\":7", "\"step\":7.5"), 400, "\"step\" must be an integer");
        assertRefused(OK.replace("[4,5,6]", "[4,5]"), 400, "counts[1] has 2 entries");
        assertRefused(OK.replace("[4,5,6]", "[4,-5,6]"), 400, "counts[1][1] is negative");
        assertRefused(OK.replace("[4,5,6]", "[4,5.5,6]"), 400, "counts[1][1] must be an integer");
        assertRefused(OK.replace("[4,5,6]", "[4,\"5\",6]"), 400, "counts[1][1] must be an integer");
        assertRefused(OK.replace(",\"counts\":[[1,2,3],[4,5,6]]", ""), 400, "missing field \"counts\"");
        assertRefused(OK.replace("\"1.4\"", "\"x\""), 400, "plan version");
    }

    @Test
    void refusesTheWrongShapeOnceTheModelIsKnown() {
        assertThatThrownBy(() -> ReportParser.parse(OK, 2, 4)).hasMessageContaining("the model has 4");
        assertThatThrownBy(() -> ReportParser.parse(OK, 1, 3)).hasMessageContaining("exceed the model's 1 layers");
    }

    @Test
    void refusesOversizedReports() {
        StringBuilder sb = new StringBuilder("{\"worldGeneration\":1,\"step\":1,\"gpuRank\":0,\"counts\":[");
        int rows = Protocol.MAX_REPORT_COUNTS / 64 + 1;
        for (int l = 0; l < rows; l++) {
            sb.append(l == 0 ? "" : ",").append("[").append("0,".repeat(63)).append("0]");
        }
        String big = sb.append("]}").toString();
        assertThatThrownBy(() -> ReportParser.parse(big, 0, 0))
                .isInstanceOfSatisfying(BadReportException.class, e -> assertThat(e.httpStatus()).isEqualTo(413))
                .hasMessageContaining("the limit is " + Protocol.MAX_REPORT_COUNTS);
    }

    static void assertRefused(String body, int status, String message) {
        assertThatThrownBy(() -> ReportParser.parse(body, 0, 0)).as(body)
                .isInstanceOfSatisfying(BadReportException.class, e -> assertThat(e.httpStatus()).isEqualTo(status))
                .hasMessageContaining(message);
    }
}
