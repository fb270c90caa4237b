package dev.ballast.tools.bench;

import dev.ballast.contracts.json.JsonWriter;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.codec.PlanBinary;
import dev.ballast.planner.codec.PlanJson;
import dev.ballast.planner.load.EmaPredictor;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.load.SourceMapping;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.Planner;
import dev.ballast.planner.planners.Planners;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.tools.synth.Scenarios;
import dev.ballast.tools.synth.SyntheticSpec;
import dev.ballast.tools.synth.SyntheticTrace;
import dev.ballast.tools.trace.TraceFormatException;
import dev.ballast.tools.trace.TraceReader;
import dev.ballast.tools.trace.TraceSource;
import dev.ballast.tools.trace.TraceWriter;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/** Entry point of {@code bin/ballast bench} and {@code bin/ballast plan} (docs/planner.md, "CLI"). */
public final class BenchMain {
    static final String DEFAULT_TOPOLOGY = "nodes=8,gpusPerNode=8";
    private static final Set<String> COMMON = Set.of("trace", "synthetic", "topology", "ep", "pp", "mode", "slots", "replan",
            "tokens-per-gpu", "alpha", "memory-budget", "seed");

    private BenchMain() {
    }

    public static void main(String[] argv) {
        if (argv.length == 0 || !(argv[0].equals("bench") || argv[0].equals("plan"))) {
            System.err.println("usage: BenchMain bench|plan [flags]  (see docs/planner.md)");
            System.exit(2);
        }
        String[] rest = Arrays.copyOfRange(argv, 1, argv.length);
        try {
            int rc = argv[0].equals("bench") ? bench(rest, System.out, System.err) : plan(rest, System.out);
            System.exit(rc);
        } catch (IllegalArgumentException | TraceFormatException e) {
            System.err.println("bin/ballast " + argv[0] + ": " + e.getMessage());
            System.exit(2);
        } catch (IOException e) {
            System.err.println("bin/ballast " + argv[0] + ": " + e);
            System.exit(1);
        }
    }

    static int bench(String[] argv, PrintStream out, PrintStream err) throws IOException {
        Set<String> valued = union(COMMON, Set.of("planners", "steps", "plan-repeats", "suite", "jmh", "traces-dir",
                "write-trace", "command"));
        Args a = new Args(argv, valued, Set.of("json", "oracle", "quiet"));
        BenchConfig cfg = config(a);
        Progress progress = new Progress(a.has("quiet") ? null : err);
        if (a.has("suite")) {
            if (!"docs".equals(a.one("suite", ""))) {
                throw new IllegalArgumentException("--suite: only 'docs' is defined");
            }
            String root = System.getProperty("ballast.root", ".");
            Path traces = Path.of(a.one("traces-dir", root + "/traces")).normalize();
            out.print(DocsSuite.render(traces, a.one("jmh", null), a.one("command", "bin/ballast bench --suite docs"), progress));
            return 0;
        }
        List<TraceSource> traces = traces(a);
        if (traces.isEmpty()) {
            throw new IllegalArgumentException("give --trace FILE or --synthetic NAME (scenarios: "
                    + String.join(", ", Scenarios.names()) + ")");
        }
        if (a.has("write-trace")) {
            Path dir = Path.of(a.one("write-trace", "."));
            Files.createDirectories(dir);
            for (TraceSource t : traces) {
                try (Writer w = Files.newBufferedWriter(dir.resolve(t.name() + ".jsonl"), StandardCharsets.UTF_8)) {
                    TraceWriter.write(t, w);
                }
            }
        }
        List<String> topologies = a.all("topology");
        if (topologies.isEmpty()) {
            topologies = List.of(DEFAULT_TOPOLOGY);
        }
        List<String> planners = List.of(a.one("planners", "static,eplb,ballast").split(","));
        for (String p : planners) {
            RoutedPlanner.byName(p.trim());
        }
        List<BenchResult> results = new ArrayList<>();
        for (TraceSource t : traces) {
            for (String spec : topologies) {
                Topology topo = Topology.parse(spec);
                for (String p : planners) {
                    Planner planner = RoutedPlanner.byName(p.trim());
                    int interval = interval(cfg, t, a.has("replan"));
                    results.add(progress.run(t.name() + " " + topo.label() + " " + planner.name(),
                            () -> Evaluator.run(t, topo, planner, cfg, interval)));
                }
            }
        }
        if (a.has("json")) {
            JsonWriter w = new JsonWriter().beginObject();
            writeParameters(w, cfg, traces, topologies, planners);
            w.name("results").beginArray();
            for (BenchResult r : results) {
                r.write(w);
            }
            out.println(w.endArray().endObject());
        } else {
            out.print(describe(cfg, traces, topologies, planners));
            out.print(Table.text(results));
        }
        return 0;
    }

    static int plan(String[] argv, PrintStream out) throws IOException {
        Set<String> valued = union(COMMON, Set.of("planner", "step", "format", "out", "world-generation", "sequence"));
        Args a = new Args(argv, valued, Set.of());
        BenchConfig cfg = config(a);
        List<TraceSource> traces = traces(a);
        if (traces.size() != 1) {
            throw new IllegalArgumentException("plan needs exactly one --trace FILE or --synthetic NAME");
        }
        TraceSource t = traces.get(0);
        Topology topo = Topology.parse(a.one("topology", DEFAULT_TOPOLOGY));
        Planner planner = Planners.byName(a.one("planner", "ballast"));
        var h = t.header();
        MoeShape shape = MoeShape.forModel(h.model(), h.layers(), h.experts(), h.topK());
        Parallelism par = Parallelism.resolve(topo.gpus(), h.experts(), cfg.ep(), cfg.pp());
        PlanningContext ctx = new PlanningContext(topo, par, shape, cfg.mode(), cfg.slotsFor(shape, par),
                interval(cfg, t, a.has("replan")));
        int last = a.integer("step", t.steps() - 1, 0);
        if (last >= t.steps()) {
            throw new IllegalArgumentException("--step " + last + ": the trace has " + t.steps() + " steps");
        }
        EmaPredictor pred = new EmaPredictor(cfg.alpha());
        for (int i = 0; i <= last; i++) {
            ModelLoads l = SourceMapping.toGpus(t.counts(i), par, h.experts(), (long) cfg.tokensPerGpu() * h.topK());
            pred.observe(l);
        }
        PlanVersion v = new PlanVersion(a.integer("world-generation", 0, 0), a.integer("sequence", 1, 0));
        Plan plan = planner.plan(new PlanRequest(ctx, pred.predict(par.ep(), h.experts()), null, v, t.stepNumber(last) + 1));
        String format = a.one("format", "json");
        switch (format) {
            case "json" -> out.println(PlanJson.encode(plan));
            case "binary" -> {
                String file = a.one("out", null);
                if (file == null) {
                    throw new IllegalArgumentException("--format binary needs --out FILE");
                }
                Files.write(Path.of(file), PlanBinary.encode(plan));
                out.printf("wrote %s (%d bytes, fingerprint %016x)%n", file, PlanBinary.encode(plan).length, PlanBinary.fingerprint(plan));
            }
            default -> throw new IllegalArgumentException("--format must be json or binary, got '" + format + "'");
        }
        return 0;
    }

    private static int interval(BenchConfig cfg, TraceSource t, boolean explicit) {
        if (!explicit && t instanceof SyntheticTrace s && s.spec().replanInterval() > 0) {
            return s.spec().replanInterval();
        }
        return cfg.replanInterval();
    }

    static BenchConfig config(Args a) {
        String ep = a.one("ep", null);
        Integer epV = null;
        if (ep != null) {
            epV = a.integer("ep", 0, 1);
        }
        double alpha = a.number("alpha", EmaPredictor.DEFAULT_ALPHA);
        if (!(alpha > 0 && alpha <= 1)) {
            throw new IllegalArgumentException("--alpha must be in (0, 1], got " + alpha);
        }
        Mode mode;
        try {
            mode = Mode.parse(a.one("mode", "replicate"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--mode: " + e.getMessage());
        }
        return new BenchConfig(epV, a.integer("pp", 1, 1), mode, a.integer("slots", 2, 0), a.integer("replan", 50, 1), true,
                a.integer("tokens-per-gpu", 8192, 0), alpha, a.has("oracle"), a.integer("steps", 0, 0),
                a.integer("plan-repeats", 1, 1), a.longValue("memory-budget", 0, 0));
    }

    static List<TraceSource> traces(Args a) throws IOException {
        if (a.has("seed") && a.all("synthetic").isEmpty()) {
            throw new IllegalArgumentException("--seed reseeds the --synthetic scenarios; none was given");
        }
        List<TraceSource> out = new ArrayList<>();
        for (String f : a.all("trace")) {
            Path p = Path.of(f);
            if (!Files.isRegularFile(p)) {
                throw new IllegalArgumentException("--trace " + f + ": no such file");
            }
            try {
                out.add(TraceReader.read(p));
            } catch (TraceFormatException e) {
                throw new IllegalArgumentException("--trace " + f + ": " + e.getMessage());
            }
        }
        for (String n : a.all("synthetic")) {
            SyntheticSpec s = Scenarios.byName(n);
            // Another draw of the same scenario: whether a result holds beyond the suite's fixed seed.
            out.add(new SyntheticTrace(a.has("seed") ? s.withSeed(a.longValue("seed", 0, 0)) : s));
        }
        return out;
    }

    static void writeParameters(JsonWriter w, BenchConfig cfg, List<TraceSource> traces, List<String> topologies,
                                List<String> planners) {
        w.name("parameters").beginObject();
        w.name("traces").beginArray();
        for (TraceSource t : traces) {
            w.beginObject().field("name", t.name()).field("model", t.header().model()).field("steps", t.steps())
                    .field("origin", t.header().origin()).endObject();
        }
        w.endArray();
        w.name("topologies").beginArray();
        for (String t : topologies) {
            w.value(t);
        }
        w.endArray();
        w.name("planners").beginArray();
        for (String p : planners) {
            w.value(p.trim());
        }
        w.endArray();
        w.field("ep", cfg.ep() == null ? "min(experts, GPUs per stage)" : String.valueOf(cfg.ep()))
                .field("pp", cfg.pp())
                .field("mode", cfg.mode().wireName())
                .field("redundantSlotsPerGpu", cfg.redundantSlots())
                .field("memoryBudgetBytes", cfg.memoryBudgetBytes())
                .field("replanEverySteps", cfg.replanInterval())
                .field("tokensPerGpu", cfg.tokensPerGpu())
                .field("predictor", "ema alpha=" + cfg.alpha())
                .field("forceOracle", cfg.forceOracle())
                .field("maxSteps", cfg.maxSteps())
                .field("planRepeats", cfg.planRepeats())
                .endObject();
        w.name("machine").beginObject();
        Machine m = Machine.current();
        w.field("cpus", m.cpus()).field("cpuModel", m.cpuModel()).field("jdk", m.jdk()).endObject();
    }

    static String describe(BenchConfig cfg, List<TraceSource> traces, List<String> topologies, List<String> planners) {
        StringBuilder sb = new StringBuilder();
        sb.append("# parameters: mode=").append(cfg.mode().wireName())
                .append(" slots=").append(cfg.redundantSlots())
                .append(cfg.memoryBudgetBytes() > 0 ? " memoryBudget=" + cfg.memoryBudgetBytes() + "B" : "")
                .append(" replan=").append(cfg.replanInterval())
                .append(" tokensPerGpu=").append(cfg.tokensPerGpu())
                .append(" ep=").append(cfg.ep() == null ? "auto" : cfg.ep())
                .append(" pp=").append(cfg.pp())
                .append(" predictor=ema(").append(cfg.alpha()).append(")")
                .append(cfg.forceOracle() ? " oracle" : "")
                .append(cfg.maxSteps() > 0 ? " steps<=" + cfg.maxSteps() : "")
                .append('\n');
        sb.append("# topologies: ").append(String.join(" | ", topologies)).append('\n');
        sb.append("# planners: ").append(String.join(",", planners)).append('\n');
        for (TraceSource t : traces) {
            sb.append("# trace ").append(t.name()).append(": model=").append(t.header().model()).append(" steps=").append(t.steps());
            if (t.header().origin() != null) {
                sb.append(" origin=").append(t.header().origin());
            }
            sb.append('\n');
        }
        Machine m = Machine.current();
        sb.append("# machine: ").append(m.cpus()).append(" CPUs, ").append(m.cpuModel()).append(", ").append(m.jdk()).append('\n');
        sb.append("# eval: causal = plan from earlier steps only (EMA), oracle = plan and score the same step\n");
        return sb.toString();
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        java.util.HashSet<String> s = new java.util.HashSet<>(a);
        s.addAll(b);
        return s;
    }
}
