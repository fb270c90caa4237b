package dev.ballast.contracts.status;

import dev.ballast.contracts.json.JsonException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BalancerStatusJsonTest {
    @Test
    void encodesEveryFieldInOrderWithRatiosToFourDecimals() {
        var beat = new BalancerStatus.StepHeartbeat(3, 4210, "2026-12-03T19:00:00Z");
        var measured = new BalancerStatus.Measured(1.3, 1.1, 0.5, 0.4, 0.3, 0.2);
        var stragglers = List.of(new BalancerStatus.Straggler(5, "j-g3-w2", BalancerStatus.Straggler.SLOW));
        BalancerStatus s = new BalancerStatus("3.17", 128, 4200, 1.234567, 1.05, 1.17449, beat, "x",
                new BalancerStatus.FirstPlan(3, BalancerStatus.FROM_STEPS, 2), measured, stragglers);
        assertThat(BalancerStatusJson.fields(s).keySet()).containsExactlyElementsOf(BalancerStatus.FIELDS);
        assertThat(((Map<?, ?>) BalancerStatusJson.fields(s).get(BalancerStatus.MEASURED)).keySet().stream().map(Object::toString))
                .containsExactlyElementsOf(BalancerStatus.MEASURED_FIELDS);
        String json = BalancerStatusJson.encode(s);
        assertThat(json).isEqualTo("{\"planVersion\":\"3.17\",\"planSequence\":128,\"adoptedAtStep\":4200,"
                + "\"imbalanceBefore\":1.2346,\"imbalanceAfter\":1.05,\"predictedSpeedup\":1.1745,"
                + "\"lastStepGeneration\":3,\"lastStep\":4210,\"lastStepTime\":\"2026-12-03T19:00:00Z\","
                + "\"planError\":\"x\",\"firstPlanGeneration\":3,\"firstPlanSource\":\"steps\",\"firstPlanSteps\":2,"
                + "\"measured\":{\"imbalanceBefore\":1.3,\"imbalanceAfter\":1.1,\"stepSecondsBefore\":0.5,"
                + "\"stepSecondsAfter\":0.4,\"stepTimeSpeedup\":1.25,\"computeSecondsBefore\":0.3,"
                + "\"computeSecondsAfter\":0.2},\"stragglers\":[{\"rank\":5,\"pod\":\"j-g3-w2\",\"kind\":\"slow\"}]}");
        assertThat(BalancerStatusJson.decode(json)).isEqualTo(new BalancerStatus("3.17", 128, 4200, 1.2346, 1.05,
                1.1745, beat, "x", new BalancerStatus.FirstPlan(3, BalancerStatus.FROM_STEPS, 2), measured,
                stragglers));
    }

    @Test
    void carriesStragglersOnlyWhenThereAreSomeAndRefusesAnUnknownKind() {
        BalancerStatus none = new BalancerStatus("1.0", 0, -1, 1.0, 1.0, 1.0, null);
        assertThat(BalancerStatusJson.fields(none)).doesNotContainKey(BalancerStatus.STRAGGLERS);
        BalancerStatus two = none.withStragglers(List.of(
                new BalancerStatus.Straggler(0, "j-g1-w0", BalancerStatus.Straggler.SILENT),
                new BalancerStatus.Straggler(3, "j-g1-w1", BalancerStatus.Straggler.SLOW)));
        String json = BalancerStatusJson.encode(two);
        assertThat(json).endsWith(",\"stragglers\":[{\"rank\":0,\"pod\":\"j-g1-w0\",\"kind\":\"silent\"},"
                + "{\"rank\":3,\"pod\":\"j-g1-w1\",\"kind\":\"slow\"}]}");
        assertThat(BalancerStatusJson.decode(json)).isEqualTo(two);
        assertThatThrownBy(() -> BalancerStatusJson.decode(json.replace("silent", "late")))
                .isInstanceOf(JsonException.class).hasMessageContaining("\"kind\" must be \"slow\" or \"silent\"");
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

    @Test
    void carriesThePlanErrorAndTheFirstPlanOnlyWhenThereAreSome() {
        BalancerStatus s = new BalancerStatus("2.0", 8, -1, 1.0, 1.0, 1.0, null)
                .withPlanError("cannot plan world generation 2: too small")
                .withFirstPlan(new BalancerStatus.FirstPlan(2, BalancerStatus.FROM_HISTORY, -1));
        String json = BalancerStatusJson.encode(s);
        assertThat(json).endsWith(",\"planError\":\"cannot plan world generation 2: too small\","
                + "\"firstPlanGeneration\":2,\"firstPlanSource\":\"history\"}");
        assertThat(BalancerStatusJson.decode(json)).isEqualTo(s);
        BalancerStatus adopted = s.withPlanError("").withFirstPlan(s.firstPlan().adoptedAfter(0));
        assertThat(BalancerStatusJson.fields(adopted)).doesNotContainKey(BalancerStatus.PLAN_ERROR)
                .containsEntry(BalancerStatus.FIRST_PLAN_STEPS, 0L);
        assertThat(BalancerStatusJson.decode(BalancerStatusJson.encode(adopted))).isEqualTo(adopted);
    }

    @Test
    void writesTheMeasuredBlockNestedWithOnlyWhatWasMeasured() {
        BalancerStatus s = new BalancerStatus("2.3", 64, 40, 1.5, 1.1, 1.3, null)
                .withMeasured(new BalancerStatus.Measured(1.623456, 1.0712, 0.2500004, 0.2, 0.1, 0.0625));
        assertThat(BalancerStatusJson.fields(s).keySet()).last().isEqualTo(BalancerStatus.MEASURED);
        String json = BalancerStatusJson.encode(s);
        assertThat(json).endsWith(",\"measured\":{\"imbalanceBefore\":1.6235,\"imbalanceAfter\":1.0712,"
                + "\"stepSecondsBefore\":0.25,\"stepSecondsAfter\":0.2,\"stepTimeSpeedup\":1.25,"
                + "\"computeSecondsBefore\":0.1,\"computeSecondsAfter\":0.0625}}");
        assertThat(BalancerStatusJson.decode(json)).isEqualTo(s.withMeasured(
                new BalancerStatus.Measured(1.6235, 1.0712, 0.25, 0.2, 0.1, 0.0625)));

        // before a plan is in use and without timings: only the static layout's imbalance
        BalancerStatus staticOnly = s.withMeasured(new BalancerStatus.Measured(1.4, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN));
        assertThat(BalancerStatusJson.encode(staticOnly)).endsWith(",\"measured\":{\"imbalanceBefore\":1.4}}");
        assertThat(BalancerStatusJson.decode(BalancerStatusJson.encode(staticOnly))).isEqualTo(staticOnly);
        assertThat(BalancerStatusJson.fields(s.withMeasured(null))).doesNotContainKey(BalancerStatus.MEASURED);
    }

    @Test
    void namesABadMeasuredField() {
        assertThatThrownBy(() -> BalancerStatusJson.decode("{\"planVersion\":\"1.0\",\"planSequence\":1,"
                + "\"adoptedAtStep\":-1,\"imbalanceBefore\":1,\"imbalanceAfter\":1,\"predictedSpeedup\":1,"
                + "\"measured\":{\"stepSecondsAfter\":\"fast\"}}"))
                .isInstanceOf(JsonException.class).hasMessageContaining("stepSecondsAfter");
    }
}
