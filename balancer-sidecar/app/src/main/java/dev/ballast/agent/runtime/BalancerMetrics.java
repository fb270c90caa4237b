package dev.ballast.agent.runtime;

import dev.ballast.agent.balancer.BalancerMetricsState;
import dev.ballast.agent.balancer.BalancerMetricsState.Scores;
import dev.ballast.agent.proto.ErrorNotice;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * The balancer's metrics (docs/metrics.md): every series reads the newest {@link BalancerMetricsState} the core
 * handed over, so the metrics only observe. Labels: namespace and job on all, plus fixed sets (source, layout,
 * reason) and the layer index on the per-layer imbalance only.
 */
public final class BalancerMetrics {
    private static final List<String> SOURCES = List.of("predicted", "measured");
    private static final List<String> LAYOUTS = List.of("before", "after");

    private final Tags job;
    private final MultiGauge layers;
    private volatile BalancerMetricsState state = BalancerMetricsState.EMPTY;
    private int layerCount = -1;

    public BalancerMetrics(MeterRegistry registry, String namespace, String jobName) {
        job = Tags.of("namespace", namespace, "job", jobName);
        for (String source : SOURCES) {
            for (String layout : LAYOUTS) {
                gauge(registry, "ballast.balancer.imbalance", "Busiest GPU's tokens over the mean, whole model:"
                        + " predicted (the current plan's forecast) or measured (the newest step), before (static"
                        + " layout) or after (the plan)", Tags.of("source", source, "layout", layout),
                        s -> whole(scores(s, source), layout));
            }
        }
        layers = MultiGauge.builder("ballast.balancer.layer.imbalance")
                .description("ballast_balancer_imbalance for one MoE layer").register(registry);
        gauge(registry, "ballast.balancer.predicted.step.time.gain", "Predicted step time of the static layout over"
                + " the current plan's (1: no gain)", Tags.empty(), BalancerMetricsState::predictedGain);
        gauge(registry, "ballast.balancer.plan.sequence", "Sequence of the newest published plan in its world",
                Tags.empty(), BalancerMetricsState::planSequence);
        gauge(registry, "ballast.balancer.world.generation", "World generation the balancer plans for",
                Tags.empty(), BalancerMetricsState::worldGeneration);
        gauge(registry, "ballast.balancer.sidecars.connected", "Authenticated sidecar streams", Tags.empty(),
                BalancerMetricsState::sidecarsConnected);
        gauge(registry, "ballast.balancer.ranks.behind", "GPU ranks of the world not yet running the newest plan",
                Tags.empty(), BalancerMetricsState::ranksBehind);
        gauge(registry, "ballast.balancer.ranks.silent", "GPU ranks missing from the last 3 released steps"
                + " (stragglers that stopped reporting)", Tags.empty(), BalancerMetricsState::ranksSilent);
        gauge(registry, "ballast.balancer.ranks.slow", "GPU ranks whose compute (or step) time stayed at or above"
                + " 1.3x their peers' median for 3 windows of 8 complete steps (stragglers)", Tags.empty(),
                BalancerMetricsState::ranksSlow);
        FunctionTimer.builder("ballast.balancer.sidecar.report.latency", this,
                        m -> m.state.sidecarHealth().reportsSent(), m -> m.state.sidecarHealth().reportSeconds(),
                        TimeUnit.SECONDS)
                .description("Load reports the sidecars sent, and their time from the trainer's call to the stream")
                .tags(job).register(registry);
        Gauge.builder("ballast.balancer.sidecar.report.latency.max", this,
                        m -> m.state.sidecarHealth().reportMaxSeconds()).baseUnit("seconds")
                .description("Longest report latency in the connected sidecars' latest 5 s intervals (0: none)")
                .tags(job).register(registry);
        FunctionTimer.builder("ballast.balancer.sidecar.plan.latency", this,
                        m -> m.state.sidecarHealth().plansReceived(), m -> m.state.sidecarHealth().planSeconds(),
                        TimeUnit.SECONDS)
                .description("New plans the sidecars received, and their time from publication to the sidecar")
                .tags(job).register(registry);
        Gauge.builder("ballast.balancer.sidecar.plan.latency.max", this,
                        m -> m.state.sidecarHealth().planMaxSeconds()).baseUnit("seconds")
                .description("Longest plan latency in the connected sidecars' latest 5 s intervals (0: none)")
                .tags(job).register(registry);
        FunctionCounter.builder("ballast.balancer.sidecar.reports.dropped", this,
                        m -> m.state.sidecarHealth().reportsDropped())
                .description("Load reports the sidecars dropped from their full outboxes").tags(job).register(registry);
        gauge(registry, "ballast.balancer.sidecar.reports.queued", "Load reports waiting in the connected sidecars'"
                + " outboxes", Tags.empty(), st -> st.sidecarHealth().reportsQueued());
        FunctionTimer.builder("ballast.balancer.plan.computation", this, m -> m.state.plans(),
                        m -> m.state.planNanos(), TimeUnit.NANOSECONDS)
                .description("Plans computed and the time spent computing them").tags(job).register(registry);
        gauge(registry, "ballast.balancer.plan.moved.bytes", "Expert weights the newest published plan moved onto"
                + " GPUs that did not hold them", Tags.empty(), BalancerMetricsState::lastBytesMoved);
        FunctionCounter.builder("ballast.balancer.plans.moved.bytes", this, m -> m.state.bytesMoved())
                .description("Expert weights moved by all published plans").tags(job).register(registry);
        for (ErrorNotice.Code code : ErrorNotice.Code.values()) {
            if (code == ErrorNotice.Code.UNRECOGNIZED) {
                continue;
            }
            FunctionCounter.builder("ballast.balancer.refusals", this,
                            m -> m.state.refusals().getOrDefault(code, 0L))
                    .description("Sidecar messages and streams refused, by reason")
                    .tags(job).tag("reason", code.name().toLowerCase(Locale.ROOT)).register(registry);
        }
    }

    /** Takes the core's newest state; the per-layer series follow its layer count. Called on the core's loop. */
    public synchronized void update(BalancerMetricsState next) {
        state = next;
        int count = next.predicted() != null ? next.predicted().layersBefore().length
                : next.measured() != null ? next.measured().layersBefore().length : 0;
        if (count == layerCount) {
            return;
        }
        layerCount = count;
        List<MultiGauge.Row<?>> rows = new ArrayList<>();
        for (int l = 0; l < count; l++) {
            int layer = l;
            for (String source : SOURCES) {
                for (String layout : LAYOUTS) {
                    rows.add(MultiGauge.Row.of(job.and("source", source, "layout", layout, "layer",
                            Integer.toString(layer)), this, m -> layer(scores(m.state, source), layout, layer)));
                }
            }
        }
        layers.register(rows, true);
    }

    private void gauge(MeterRegistry registry, String name, String description, Tags tags,
                       ToDoubleFunction<BalancerMetricsState> value) {
        Gauge.builder(name, this, m -> value.applyAsDouble(m.state)).description(description).tags(job).tags(tags)
                .register(registry);
    }

    private static Scores scores(BalancerMetricsState s, String source) {
        return source.equals("predicted") ? s.predicted() : s.measured();
    }

    /** NaN until there is a plan (predicted) or a step (measured). */
    private static double whole(Scores s, String layout) {
        return s == null ? Double.NaN : layout.equals("before") ? s.before() : s.after();
    }

    private static double layer(Scores s, String layout, int layer) {
        if (s == null) {
            return Double.NaN;
        }
        double[] values = layout.equals("before") ? s.layersBefore() : s.layersAfter();
        return layer < values.length ? values[layer] : Double.NaN;
    }
}
