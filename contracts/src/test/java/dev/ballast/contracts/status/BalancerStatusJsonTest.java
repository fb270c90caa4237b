package dev.ballast.contracts.status;

import dev.ballast.contracts.json.JsonException;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BalancerStatusJsonTest {
    @Test
    void encodesEveryFieldInOrderWithRatiosToFourDecimals() {
        var beat = new BalancerStatus.StepHeartbeat(3, 4210, "2026-12-03T19:00:00Z");
        BalancerStatus s = new BalancerStatus("3.17", 128, 4200, 1.234567, 1.05, 1.17449, beat);
        assertThat(BalancerStatusJson.fields(s).keySet()).containsExactlyElementsOf(BalancerStatus.FIELDS);
        String json = BalancerStatusJson.encode(s);
        assertThat(json).isEqualTo("{\"planVersion\":\"3.17\",\"planSequence\":128,\"adoptedAtStep\":4200,"
                + "\"imbalanceBefore\":1.2346,\"imbalanceAfter\":1.05,\"predictedSpeedup\":1.1745,"
                + "\"lastStepGeneration\":3,\"lastStep\":4210,\"lastStepTime\":\"2026-12-03T19:00:00Z\"}");
        assertThat(BalancerStatusJson.decode(json))
                .isEqualTo(new BalancerStatus("3.17", 128, 4200, 1.2346, 1.05, 1.1745, beat));
    }

    @Test
    void leavesTheHeartbeatOutUntilTheFirstStep() {
        BalancerStatus s = new BalancerStatus("1.0", 0, -1, 1.0, 1.0, 1.0, null);
        assertThat(BalancerStatusJson.fields(s)).doesNotContainKey(BalancerStatus.LAST_STEP);
        assertThat(BalancerStatusJson.decode(BalancerStatusJson.encode(s))).isEqualTo(s);
    }

    @Test
    void readsBackThePlanSequenceAndNamesAMissingField() {
        assertThat(BalancerStatusJson.planSequence(Map.of("planSequence", 64))).isEqualTo(64);
        assertThat(BalancerStatusJson.planSequence(Map.of())).isZero();
        assertThat(BalancerStatusJson.planSequence(null)).isZero();
        assertThatThrownBy(() -> BalancerStatusJson.decode("{\"planVersion\":\"1.0\",\"planSequence\":1}"))
                .isInstanceOf(JsonException.class).hasMessageContaining("adoptedAtStep");
    }
}
