package dev.ballast.tools.metricsbench;

import dev.ballast.agent.balancer.BalancerMetricsState;
import dev.ballast.agent.balancer.BalancerMetricsState.Scores;
import dev.ballast.agent.balancer.SidecarHealthTally;
import dev.ballast.agent.proto.ErrorNotice;
import dev.ballast.agent.runtime.BalancerMetrics;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheus.PrometheusConfig;
import io.micrometer.prometheus.PrometheusMeterRegistry;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * CPU time of one scrape of a balancer's metrics (docs/benchmarks-metrics.md): the agent's own registry type
 * (Micrometer's Prometheus registry, as Quarkus serves /q/metrics) with the JVM and process series Quarkus binds and
 * {@link BalancerMetrics} holding the state of a 256-GPU world (32 sidecars) of {@code layers} MoE layers, rendered
 * to the Prometheus text format over and over on one thread, timed by that thread's CPU clock.
 * Run (docs/benchmarks-metrics.md): {@code ScrapeCost [layers=60] [scrapes=2000]}.
 */
public final class ScrapeCost {
    private ScrapeCost() {
    }

    public static void main(String[] args) {
        if (args.length > 2) {
            usage("at most two arguments: LAYERS SCRAPES");
        }
        int layers = args.length > 0 ? positive(args[0], "LAYERS") : 60;
        int scrapes = args.length > 1 ? positive(args[1], "SCRAPES") : 2000;
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new BalancerMetrics(registry, "team-a", "olmoe-256").update(state(layers));

        String text = registry.scrape();
        long series = text.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).count();
        long balancerSeries = text.lines().filter(l -> l.startsWith("ballast_balancer_")).count();
        var cpu = ManagementFactory.getThreadMXBean();
        for (int i = 0; i < scrapes; i++) { // warm-up: the JIT compiles the rendering path
            registry.scrape();
        }
        long[] nanos = new long[scrapes];
        for (int i = 0; i < scrapes; i++) {
            long start = cpu.getCurrentThreadCpuTime();
            registry.scrape();
            nanos[i] = cpu.getCurrentThreadCpuTime() - start;
        }
        Arrays.sort(nanos);
        double mean = Arrays.stream(nanos).average().orElse(0);
        System.out.printf(Locale.ROOT, "scrape of %d layers: %d lines of samples (%d ballast_balancer_*), %d bytes%n",
                layers, series, balancerSeries, text.length());
        System.out.printf(Locale.ROOT, "CPU per scrape over %d scrapes: mean %.3f ms, p50 %.3f ms, p99 %.3f ms,"
                + " max %.3f ms (target <= 50 ms)%n", scrapes, mean / 1e6, nanos[scrapes / 2] / 1e6,
                nanos[(int) (scrapes * 0.99)] / 1e6, nanos[scrapes - 1] / 1e6);
    }

    /** A 256-GPU world's state: skewed per-layer imbalance before, close to 1 after, every counter non-zero. */
    static BalancerMetricsState state(int layers) {
        Random random = new Random(42);
        double[] before = new double[layers];
        double[] after = new double[layers];
        for (int l = 0; l < layers; l++) {
            before[l] = 1.5 + random.nextDouble();
            after[l] = 1.0 + random.nextDouble() / 10;
        }
        Scores predicted = new Scores(2.0, 1.05, before, after);
        Scores measured = new Scores(2.1, 1.08, before.clone(), after.clone());
        return new BalancerMetricsState(3, 41, predicted, measured, 1.9, 120, 90_000_000_000L, 6L << 30, 200L << 30,
                32, 8, 0, 1, Map.of(ErrorNotice.Code.BAD_REPORT, 2L, ErrorNotice.Code.STALE_GENERATION, 17L),
                new SidecarHealthTally.Totals(96_000, 4.8, 0.02, 3, 32, 0.4, 0.03, 12)); // every sidecar series drawn
    }

    private static int positive(String arg, String name) {
        try {
            int v = Integer.parseInt(arg);
            if (v > 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        usage(name + " must be a positive whole number, got '" + arg + "'");
        return 0; // not reached
    }

    private static void usage(String problem) {
        System.err.println("scrapecost: " + problem + "\nusage: bin/ballast scrapecost [LAYERS (60) [SCRAPES (2000)]]");
        System.exit(2);
    }
}
