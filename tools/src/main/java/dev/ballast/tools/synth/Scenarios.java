package dev.ballast.tools.synth;

import java.util.LinkedHashMap;
import java.util.Map;

/** The named synthetic suite of the bench (docs/BENCHMARKS.md). Fixed seeds: results are reproducible. */
public final class Scenarios {
    private static final Map<String, SyntheticSpec> ALL = new LinkedHashMap<>();

    static {
        // A few very hot experts under top-1 routing: the case where equal splits fall short.
        add(new SyntheticSpec("zipf-top1-hot", 4, 256, 1, 64, 60, 8192, 1.2, 0, 0, 1, 0.2, 0.05, 11, 0));
        // Moderate skew, top-8 (DeepSeek-like 256 experts).
        add(new SyntheticSpec("zipf-top8", 4, 256, 8, 64, 60, 8192, 1.0, 0, 0, 1, 0.2, 0.05, 12, 0));
        // Named drift scenario for the incremental target: the hot set moves one popularity rank every 100 steps.
        add(new SyntheticSpec("drift", 4, 256, 8, 64, 400, 8192, 1.0, 0.01, 0, 1, 0.3, 0.05, 7, 50));
        // Five times faster drift (one rank every 20 steps), reported beside it.
        add(new SyntheticSpec("drift-fast", 4, 256, 8, 64, 400, 8192, 1.0, 0.05, 0, 1, 0.3, 0.05, 7, 50));
        // Bursts: a random expert becomes 8x hotter for single steps.
        add(new SyntheticSpec("bursty", 4, 64, 8, 64, 120, 8192, 0.8, 0, 0.2, 8, 0.2, 0.05, 13, 0));
        // Per-source heterogeneity: each data shard prefers different experts.
        add(new SyntheticSpec("heterogeneous", 4, 64, 8, 64, 60, 8192, 0.6, 0, 0, 1, 1.0, 0.05, 14, 0));
        // Small single-step layers the exact MILP solves (bin/ballast exactgap): 16 experts, 8 sources, top-1 and top-2.
        add(new SyntheticSpec("exact16-top1", 2, 16, 1, 8, 1, 8192, 1.2, 0, 0, 1, 0.2, 0.05, 21, 0));
        add(new SyntheticSpec("exact16-top2", 2, 16, 2, 8, 1, 8192, 1.0, 0, 0, 1, 0.2, 0.05, 22, 0));
        // The same small layers over 200 steps with drift-fast's drift: how a planned split (ballast-routed) ages.
        add(new SyntheticSpec("exact16-drift", 2, 16, 2, 8, 200, 8192, 1.0, 0.05, 0, 1, 0.2, 0.05, 23, 50));
        // The whole-model planning input of the plan-time target: 60 layers x 256 experts.
        add(new SyntheticSpec("whole-model", 60, 256, 8, 64, 1, 8192, 1.0, 0, 0, 1, 0.3, 0.05, 15, 0));
    }

    private Scenarios() {
    }

    private static void add(SyntheticSpec s) {
        ALL.put(s.name(), s);
    }

    public static SyntheticSpec byName(String name) {
        SyntheticSpec s = ALL.get(name);
        if (s == null) {
            throw new IllegalArgumentException("unknown synthetic scenario '" + name + "' (known: " + String.join(", ", ALL.keySet()) + ")");
        }
        return s;
    }

    public static Iterable<String> names() {
        return ALL.keySet();
    }
}
