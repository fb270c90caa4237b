package dev.ballast.agent.balancer;

import dev.ballast.contracts.status.BalancerStatus;
import dev.ballast.contracts.json.Json;
import dev.ballast.planner.load.LoadHistory;
import dev.ballast.planner.load.ModelLoads;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class DashboardJsonTest {
    static final DashboardJson.Identity ID = new DashboardJson.Identity("j", "ns", "b-1");

    @SuppressWarnings("unchecked")
    static Map<String, Object> parse(String json) {
        return (Map<String, Object>) Json.parse(json);
    }

    @Test
    void loadsShowTheLastStepAndTheSmoothedTotalsPerLayer() {
        LoadHistory h = new LoadHistory(0.5);
        assertThat(parse(DashboardJson.loads(ID, 3, h))).containsEntry("layers", List.of()).containsEntry("step", -1L);
        ModelLoads step = new ModelLoads(1, 1, 2, 2);
        System.arraycopy(new long[] {4, 0, 2, 2}, 0, step.counts(0, 0), 0, 4);
        h.observe(7, step);
        System.arraycopy(new long[] {8, 0, 2, 2}, 0, step.counts(0, 0), 0, 4);
        h.observe(8, step);
        Map<String, Object> doc = parse(DashboardJson.loads(ID, 3, h));
        assertThat(doc).containsEntry("job", "j").containsEntry("worldGeneration", 3L).containsEntry("step", 8L)
                .containsEntry("observedSteps", 2L);
        assertThat(doc.get("layers")).isEqualTo(List.of(Map.of("layer", 0L, "last", List.of(10L, 2L), "smoothed", List.of(8L, 2L))));
    }

    @Test
    void statusCarriesTheActivityAndStatusBalancer() {
        Map<String, Object> doc = parse(DashboardJson.status(ID, new DashboardJson.Activity(3, true, "", 2, 40, 1, 5, 6,
                "3.6", 2_500_000, 2_250_000, 90), new LoadHistory(0.5), new BalancerStatus("3.5", 64, 120, 2.25, 1.05, 1.7, null)));
        assertThat(doc).containsEntry("balancerId", "b-1").containsEntry("ready", true).containsEntry("sidecars", 2L)
                .containsEntry("reportsAccepted", 40L).containsEntry("reportsRefused", 1L).containsEntry("hellosRefused", 5L)
                .containsEntry("plansPublished", 6L).containsEntry("newestPlan", "3.6").containsEntry("lastPlanMillis", 2.5)
                .containsEntry("lastPlanCpuMillis", 2.25)
                .containsEntry("historyRestoredSteps", 90L)
                .containsEntry("planVersion", "3.5").containsEntry("planSequence", 64L).containsEntry("adoptedAtStep", 120L)
                .containsEntry("imbalanceBefore", 2.25).containsEntry("predictedSpeedup", 1.7).containsKey("heapLiveBytes")
                .doesNotContainKey("measured");
        Map<String, Object> measured = parse(DashboardJson.status(ID, new DashboardJson.Activity(3, true, "", 2, 40, 1,
                5, 6, "3.6", 2_500_000, 2_250_000, 90), new LoadHistory(0.5), new BalancerStatus("3.5", 64, 120, 2.25, 1.05, 1.7, null)
                .withMeasured(new BalancerStatus.Measured(2.0, 1.25, 0.5, 0.4, Double.NaN, Double.NaN))));
        assertThat(measured.get("measured")).isEqualTo(Map.of("imbalanceBefore", 2L, "imbalanceAfter", 1.25,
                "stepSecondsBefore", 0.5, "stepSecondsAfter", 0.4, "stepTimeSpeedup", 1.25));
    }
}
