package dev.ballast.agent.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.agent.balancer.BalancerMetricsState;
import dev.ballast.agent.balancer.BalancerMetricsState.Scores;
import dev.ballast.agent.balancer.SidecarHealthTally;
import dev.ballast.agent.proto.ErrorNotice;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Arrays;
import java.util.Map;
import java.util.function.IntUnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The balancer's series follow the state the core hands over, within the bounds of docs/metrics.md. */
class BalancerMetricsTest {
    /** Series per metric of one balancer as a function of the number of MoE layers L. */
    static final Map<String, IntUnaryOperator> BOUNDS = Map.ofEntries(
            Map.entry("ballast.balancer.plan.moved.bytes", l -> 1),
            Map.entry("ballast.balancer.plans.moved.bytes", l -> 1),
            Map.entry("ballast.balancer.imbalance", l -> 4),
            Map.entry("ballast.balancer.layer.imbalance", l -> 4 * l),
            Map.entry("ballast.balancer.predicted.step.time.gain", l -> 1),
            Map.entry("ballast.balancer.plan.sequence", l -> 1),
            Map.entry("ballast.balancer.world.generation", l -> 1),
            Map.entry("ballast.balancer.sidecars.connected", l -> 1),
            Map.entry("ballast.balancer.ranks.behind", l -> 1),
            Map.entry("ballast.balancer.ranks.silent", l -> 1),
            Map.entry("ballast.balancer.ranks.slow", l -> 1),
            Map.entry("ballast.balancer.sidecar.report.latency", l -> 1),
            Map.entry("ballast.balancer.sidecar.report.latency.max", l -> 1),
            Map.entry("ballast.balancer.sidecar.plan.latency", l -> 1),
            Map.entry("ballast.balancer.sidecar.plan.latency.max", l -> 1),
            Map.entry("ballast.balancer.sidecar.reports.dropped", l -> 1),
            Map.entry("ballast.balancer.sidecar.reports.queued", l -> 1),
            Map.entry("ballast.balancer.plan.computation", l -> 1),
            Map.entry("ballast.balancer.refusals", l -> ErrorNotice.Code.values().length - 1));

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final BalancerMetrics metrics = new BalancerMetrics(registry, "team-a", "olmoe");

    static double[] filled(int layers, double value) {
        double[] a = new double[layers];
        Arrays.fill(a, value);
        return a;
    }

    static BalancerMetricsState state(int layers, double predictedAfter) {
        double[] after = filled(layers, predictedAfter);
        after[layers - 1] = 1.0;
        return new BalancerMetricsState(4, 7, new Scores(2.5, predictedAfter, filled(layers, 2.5), after),
                new Scores(2.0, 1.5, filled(layers, 2.0), filled(layers, 1.5)), 1.6, 3, 3_000_000_000L, 4096, 8192, 8, 2, 1, 3,
                Map.of(ErrorNotice.Code.BAD_REPORT, 5L),
                new SidecarHealthTally.Totals(400, 2.0, 0.05, 7, 10, 0.3, 0.12, 9));
    }

    double gauge(String name, String... tags) {
        return registry.get(name).tags("namespace", "team-a", "job", "olmoe").tags(tags).gauge().value();
    }

    @Test
    void theGaugesFollowThePublishedPlan() {
        assertThat(gauge("ballast.balancer.imbalance", "source", "predicted", "layout", "after")).isNaN();
        metrics.update(state(3, 1.2));
        assertThat(gauge("ballast.balancer.imbalance", "source", "predicted", "layout", "before")).isEqualTo(2.5);
        assertThat(gauge("ballast.balancer.imbalance", "source", "predicted", "layout", "after")).isEqualTo(1.2);
        assertThat(gauge("ballast.balancer.imbalance", "source", "measured", "layout", "after")).isEqualTo(1.5);
        assertThat(gauge("ballast.balancer.layer.imbalance", "source", "predicted", "layout", "after", "layer", "0"))
                .isEqualTo(1.2);
        assertThat(gauge("ballast.balancer.layer.imbalance", "source", "predicted", "layout", "after", "layer", "2"))
                .isEqualTo(1.0);
        assertThat(gauge("ballast.balancer.predicted.step.time.gain")).isEqualTo(1.6);
        assertThat(gauge("ballast.balancer.plan.sequence")).isEqualTo(7);
        assertThat(gauge("ballast.balancer.sidecars.connected")).isEqualTo(8);
        assertThat(gauge("ballast.balancer.ranks.behind")).isEqualTo(2);
        assertThat(gauge("ballast.balancer.ranks.silent")).isEqualTo(1);
        assertThat(gauge("ballast.balancer.ranks.slow")).isEqualTo(3);
        var reports = registry.get("ballast.balancer.sidecar.report.latency").functionTimer();
        assertThat(reports.count()).isEqualTo(400);
        assertThat(reports.totalTime(java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(2.0);
        assertThat(gauge("ballast.balancer.sidecar.report.latency.max")).isEqualTo(0.05);
        var plans = registry.get("ballast.balancer.sidecar.plan.latency").functionTimer();
        assertThat(plans.count()).isEqualTo(10);
        assertThat(plans.totalTime(java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(0.3);
        assertThat(gauge("ballast.balancer.sidecar.plan.latency.max")).isEqualTo(0.12);
        assertThat(registry.get("ballast.balancer.sidecar.reports.dropped").functionCounter().count()).isEqualTo(7);
        assertThat(gauge("ballast.balancer.sidecar.reports.queued")).isEqualTo(9);
        assertThat(gauge("ballast.balancer.plan.moved.bytes")).isEqualTo(4096);
        assertThat(registry.get("ballast.balancer.plans.moved.bytes").functionCounter().count()).isEqualTo(8192);
        assertThat(registry.get("ballast.balancer.refusals").tag("reason", "bad_report").functionCounter().count())
                .isEqualTo(5);
        assertThat(registry.get("ballast.balancer.plan.computation").functionTimer().totalTime(
                java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(3.0);

        metrics.update(state(3, 1.1));
        assertThat(gauge("ballast.balancer.imbalance", "source", "predicted", "layout", "after")).isEqualTo(1.1);
        metrics.update(state(2, 1.1));
        assertThat(registry.find("ballast.balancer.layer.imbalance").tag("layer", "2").gauges())
                .as("a smaller model drops its old layers").isEmpty();
    }

    @Test
    void everyMetricStaysWithinItsDocumentedBound() {
        int layers = 60;
        metrics.update(state(layers, 1.2));
        Map<String, Long> series = registry.getMeters().stream().map(m -> m.getId().getName())
                .collect(Collectors.groupingBy(n -> n, Collectors.counting()));
        assertThat(BOUNDS.keySet()).as("every metric has a documented bound").containsAll(series.keySet());
        series.forEach((name, n) -> assertThat(n).as(name).isLessThanOrEqualTo(BOUNDS.get(name).applyAsInt(layers)));
        assertThat(series.get("ballast.balancer.layer.imbalance")).isEqualTo(4L * layers);
        for (Meter m : registry.getMeters()) {
            assertThat(m.getId().getTags()).as(m.getId().getName()).allSatisfy(t -> assertThat(t.getKey())
                    .isIn("namespace", "job", "source", "layout", "layer", "reason"));
        }
    }

    @Test
    void everyExportedFamilyIsDocumented() throws Exception {
        var prometheus = new io.micrometer.prometheus.PrometheusMeterRegistry(
                io.micrometer.prometheus.PrometheusConfig.DEFAULT);
        new BalancerMetrics(prometheus, "team-a", "olmoe").update(state(2, 1.2));
        String docs = java.nio.file.Files.readString(java.nio.file.Path.of("..", "..", "docs", "metrics.md"));
        java.util.List<String> families = prometheus.scrape().lines().filter(l -> l.startsWith("# TYPE ballast_"))
                .map(l -> l.split(" ")[2]).toList();
        assertThat(families).hasSize(BOUNDS.size());
        assertThat(families).allSatisfy(f -> assertThat(docs).as("docs/metrics.md").contains("`" + f + "`"));
    }
}
