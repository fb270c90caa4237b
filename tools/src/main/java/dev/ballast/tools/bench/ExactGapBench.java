package dev.ballast.tools.bench;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.load.SourceMapping;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.StaticLayout;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.Planner;
import dev.ballast.planner.planners.Planners;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.planners.Routing;
import dev.ballast.planner.route.RoutingLp;
import dev.ballast.tools.exact.ExactSolution;
import dev.ballast.tools.exact.LayerProblem;
import dev.ballast.tools.exact.Masters;
import dev.ballast.tools.exact.PlacementMilp;
import dev.ballast.planner.ballast.RoutedSearch;
import dev.ballast.tools.synth.Scenarios;
import dev.ballast.tools.synth.SyntheticTrace;
import dev.ballast.tools.trace.TraceFormatException;
import dev.ballast.tools.trace.TraceReader;
import dev.ballast.tools.trace.TraceSource;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * {@code bin/ballast exactgap}: the named small instances of issue 17 solved exactly (placement and routing, one MILP
 * per layer and EP group), beside Ballast's plan, fair EPLB's and the closed-form lower bound (docs/BENCHMARKS.md,
 * "Exact optimum on small instances"). Oracle, steady state: planned and scored on the same step, like the bench's
 * single-step rows. Standard output is a function of the input unless a solve hits its time limit; solve times go to
 * the progress lines on stderr.
 */
public final class ExactGapBench {

    /** Ballast's optimality gap the issue asks for, per instance. */
    static final double TARGET_GAP = 0.03;

    /** A named instance: a trace file under the traces folder or a synthetic scenario, on a topology. */
    record Instance(String name, String trace, boolean synthetic, String topology) {
    }

    static final List<Instance> NAMED = List.of(
            new Instance("mixtral-1x4", "mixtral-8x7b-domains.jsonl", false, "nodes=1,gpusPerNode=4"),
            new Instance("mixtral-2x4", "mixtral-8x7b-domains.jsonl", false, "nodes=2,gpusPerNode=4"),
            new Instance("mixtral-2x8", "mixtral-8x7b-domains.jsonl", false, "nodes=2,gpusPerNode=8"),
            new Instance("exact16-top1-2x4", "exact16-top1", true, "nodes=2,gpusPerNode=4"),
            new Instance("exact16-top2-2x4", "exact16-top2", true, "nodes=2,gpusPerNode=4"));

    /**
     * One (layer, data-parallel copy): the exact solution and every plan's layer time in seconds; {@code routed} is
     * the best-routing columns (null outside replicate mode).
     */
    record LayerRow(int layer, int copy, ExactSolution exact, double ballast, double routedBallast, double eplb, double bound,
                    double exactAtQuotaRule, Routed routed) {
    }

    /**
     * Placement and routing apart ({@link RoutingLp}, {@link RoutedSearch}): Ballast's placement under the best
     * routing, the placement a descent from it reaches when every candidate is scored by its best routing, that
     * placement under the quota rule.
     */
    record Routed(double ballastPlacement, RoutedSearch.Result search, double searchAtQuotaRule) {
    }

    /** An instance's rows; step figures sum over layers the slowest copy's, as the cost model's step time does. */
    /** {@code routedPlanSec}: wall time of the {@code ballast-routed} plan of the whole instance. */
    record InstanceResult(Instance instance, String parallelism, int slotsPerGpu, List<LayerRow> rows,
                          double routedPlanSec) {
        double step(ToDoubleFunction<LayerRow> f) {
            int layers = rows.stream().mapToInt(LayerRow::layer).max().orElse(-1) + 1;
            double sum = 0;
            for (int l = 0; l < layers; l++) {
                int layer = l;
                sum += rows.stream().filter(r -> r.layer() == layer).mapToDouble(f).max().orElse(0);
            }
            return sum;
        }

        boolean allOptimal() {
            return rows.stream().allMatch(r -> r.exact().optimal());
        }
    }

    private ExactGapBench() {
    }

    public static void main(String[] argv) {
        try {
            System.exit(run(argv, System.out, System.err));
        } catch (IllegalArgumentException | TraceFormatException e) {
            System.err.println("bin/ballast exactgap: " + e.getMessage());
            System.exit(2);
        } catch (IOException e) {
            System.err.println("bin/ballast exactgap: " + e);
            System.exit(1);
        }
    }

    static int run(String[] argv, PrintStream out, PrintStream err) throws IOException {
        Args a = new Args(argv, Set.of("instances", "time-limit", "masters", "mode", "slots", "replan", "traces-dir"),
                Set.of("quiet"));
        List<Instance> chosen = choose(a.all("instances"));
        long limitMs = Math.round(a.number("time-limit", 60) * 1000);
        if (limitMs <= 0) {
            throw new IllegalArgumentException("--time-limit must be > 0 seconds");
        }
        Masters masters = Masters.parse(a.one("masters", "free"));
        Mode mode;
        try {
            mode = Mode.parse(a.one("mode", "replicate"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--mode: " + e.getMessage());
        }
        int slots = a.integer("slots", 2, 0);
        int replan = a.integer("replan", CostModel.DEFAULT_REPLAN_INTERVAL, 1);
        Path traces = Path.of(a.one("traces-dir", System.getProperty("ballast.root", ".") + "/traces")).normalize();
        Progress progress = new Progress(a.has("quiet") ? null : err);
        List<InstanceResult> results = new ArrayList<>();
        for (Instance in : chosen) {
            TraceSource t = in.synthetic() ? new SyntheticTrace(Scenarios.byName(in.trace())) : TraceReader.read(traces.resolve(in.trace()));
            results.add(solve(in, t, mode, slots, replan, masters, limitMs, progress));
        }
        out.print(render(results, mode, slots, replan, masters, limitMs));
        return 0;
    }

    private static List<Instance> choose(List<String> names) {
        if (names.isEmpty()) {
            return NAMED;
        }
        List<Instance> out = new ArrayList<>();
        for (String n : names) {
            for (String part : n.split(",")) {
                String name = part.trim();
                out.add(NAMED.stream().filter(i -> i.name().equals(name)).findFirst().orElseThrow(() ->
                        new IllegalArgumentException("--instances: unknown instance '" + name + "' (known: "
                                + String.join(", ", NAMED.stream().map(Instance::name).toList()) + ")")));
            }
        }
        return out;
    }

    /** Plans step 0 with Ballast and fair EPLB and solves every (layer, copy) exactly. */
    static InstanceResult solve(Instance in, TraceSource t, Mode mode, int redundantSlots, int replan, Masters masters,
                                long limitMs, Progress progress) {
        var h = t.header();
        MoeShape shape = MoeShape.forModel(h.model(), h.layers(), h.experts(), h.topK());
        Topology topo = Topology.parse(in.topology());
        Parallelism par = Parallelism.resolve(topo.gpus(), h.experts(), null, 1);
        PlanningContext ctx = new PlanningContext(topo, par, shape, mode, redundantSlots, replan);
        ModelLoads loads = SourceMapping.toGpus(t.counts(0), par, h.experts(), (long) BenchConfig.defaults().tokensPerGpu() * h.topK());
        Planner ballast = Planners.byName("ballast");
        Planner eplb = Planners.byName("eplb");
        Plan ballastPlan = ballast.plan(new PlanRequest(ctx, loads, null, new PlanVersion(0, 1), t.stepNumber(0)));
        long t0 = System.nanoTime();
        Plan routedPlan = progress.run(in.name() + ": ballast-routed plan", () -> Planners.byName("ballast-routed")
                .plan(new PlanRequest(ctx, loads, null, new PlanVersion(0, 1), t.stepNumber(0))));
        double routedPlanSec = (System.nanoTime() - t0) / 1e9;
        Plan eplbPlan = eplb.plan(new PlanRequest(ctx, loads, null, new PlanVersion(0, 1), t.stepNumber(0)));
        CostModel cost = ctx.newCostModel();
        List<LayerRow> rows = new ArrayList<>();
        for (int l = 0; l < h.layers(); l++) {
            for (int c = 0; c < par.dp(); c++) {
                GroupTopology gt = ctx.group(0, c);
                long[] counts = loads.counts(l, c);
                LayerProblem problem = new LayerProblem(gt, counts, shape, mode, ctx.slotsPerGpu(), replan, masters);
                ExactSolution exact = progress.run(String.format(Locale.ROOT, "%s layer %d copy %d", in.name(), l, c),
                        () -> PlacementMilp.solve(problem, limitMs));
                if (!exact.optimal()) {
                    progress.note(String.format(Locale.ROOT, "  time limit: incumbent %.4f ms, best bound %.4f ms, MIP gap %.2f%%",
                            exact.incumbentSec() * 1e3, exact.bestBoundSec() * 1e3, exact.mipGap() * 100));
                }
                Routed routed = null;
                if (mode == Mode.REPLICATE) {
                    LayerPlacement start = ballastPlan.placement(l, c);
                    routed = progress.run(String.format(Locale.ROOT, "%s layer %d copy %d: best-routing search", in.name(), l, c),
                            () -> routed(problem, start, cost, gt, counts));
                }
                rows.add(new LayerRow(l, c, exact,
                        score(cost, gt, ballastPlan.placement(l, c), ballast.routing(), counts),
                        score(cost, gt, routedPlan.placement(l, c), Routing.QUOTA_RULE, counts),
                        score(cost, gt, eplbPlan.placement(l, c), eplb.routing(), counts),
                        cost.lowerBound(gt, counts, ctx.slotsPerGpu()),
                        score(cost, gt, exact.placement(), Routing.QUOTA_RULE, counts), routed));
            }
        }
        return new InstanceResult(in, par.toString(), ctx.slotsPerGpu(), rows, routedPlanSec);
    }

    private static Routed routed(LayerProblem problem, LayerPlacement ballast, CostModel cost, GroupTopology gt,
                                 long[] counts) {
        ToDoubleFunction<LayerPlacement> bestRouting = RoutingLp.scorer(gt, cost, counts);
        RoutedSearch.Result r = RoutedSearch.descend(bestRouting, ballast, problem.slotsPerGpu());
        return new Routed(bestRouting.applyAsDouble(ballast), r, score(cost, gt, r.placement(), Routing.QUOTA_RULE, counts));
    }

    /** Steady-state layer time of a placement with a routing; moved masters pay their migration from the home. */
    private static double score(CostModel cost, GroupTopology gt, LayerPlacement p, Routing routing, long[] counts) {
        return cost.layer(gt, p, routing.route(gt, p, counts), null, null).totalSec();
    }

    static String render(List<InstanceResult> results, Mode mode, int slots, int replan, Masters masters, long limitMs) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "# parameters: mode=%s redundantSlots=%d replan=%d masters=%s timeLimit=%ds "
                        + "tokensPerGpu=%d eval=oracle (step 0, steady state)%n", mode.wireName(), slots, replan,
                masters.wireName(), limitMs / 1000, BenchConfig.defaults().tokensPerGpu()));
        sb.append("\nPer instance (step time: sum over layers of the slowest EP group; ms):\n\n");
        sb.append("| instance | layout | slots/GPU | optimum | proven | Ballast | Ballast gap | <= 3 % | Ballast routed "
                + "| its gap | <= 3 % | its plan time | fair EPLB | EPLB gap "
                + "| closed-form bound | bound / optimum | optimum's placement, quota rule | Ballast's placement, best routing "
                + "| best-routing search | its gap | its placement, quota rule |\n");
        sb.append("|---|---|--:|--:|---|--:|--:|---|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
        for (InstanceResult r : results) {
            double opt = r.step(x -> x.exact().incumbentSec());
            double best = r.step(x -> x.exact().bestBoundSec());
            double ballast = r.step(LayerRow::ballast);
            double routed = r.step(LayerRow::routedBallast);
            boolean proven = r.allOptimal();
            sb.append(String.format(Locale.ROOT, "| %s | %s | %d | %s | %s | %.3f | %s | %s | %.3f | %s | %s | %.1f s | %.3f | %s "
                            + "| %.3f | %s | %.3f | %s |%n",
                    r.instance().name(), r.parallelism(), r.slotsPerGpu(), optimum(opt, best, proven), proven ? "yes" : "no",
                    ballast * 1e3, gap(ballast, opt, best, proven), verdict(ballast, opt, best, proven),
                    routed * 1e3, gap(routed, opt, best, proven), verdict(routed, opt, best, proven), r.routedPlanSec(),
                    r.step(LayerRow::eplb) * 1e3, gap(r.step(LayerRow::eplb), opt, best, proven),
                    r.step(LayerRow::bound) * 1e3, tightness(r.step(LayerRow::bound), opt, best, proven),
                    r.step(LayerRow::exactAtQuotaRule) * 1e3, apartCells(r, opt, best, proven)));
        }
        sb.append("\nPer layer and EP group (ms):\n\n");
        sb.append("| instance | layer | copy | optimum | MIP gap | Ballast | Ballast gap | Ballast routed | its gap | fair EPLB "
                + "| EPLB gap | closed-form bound | bound / optimum | optimum's placement |\n");
        sb.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
        for (InstanceResult r : results) {
            for (LayerRow x : r.rows()) {
                ExactSolution e = x.exact();
                sb.append(String.format(Locale.ROOT, "| %s | %d | %d | %s | %.2f %% | %.3f | %s | %.3f | %s | %.3f | %s | %.3f | %s | %s |%n",
                        r.instance().name(), x.layer(), x.copy(), optimum(e.incumbentSec(), e.bestBoundSec(), e.optimal()),
                        e.mipGap() * 100, x.ballast() * 1e3, gap(x.ballast(), e.incumbentSec(), e.bestBoundSec(), e.optimal()),
                        x.routedBallast() * 1e3, gap(x.routedBallast(), e.incumbentSec(), e.bestBoundSec(), e.optimal()),
                        x.eplb() * 1e3, gap(x.eplb(), e.incumbentSec(), e.bestBoundSec(), e.optimal()), x.bound() * 1e3,
                        tightness(x.bound(), e.incumbentSec(), e.bestBoundSec(), e.optimal()), describe(e.placement())));
            }
        }
        if (results.stream().flatMap(r -> r.rows().stream()).anyMatch(x -> x.routed() != null)) {
            sb.append("\nPlacement and routing apart, per layer and EP group (ms; best routing: the routing LP of the placement, "
                    + "masters at home; the search descends from Ballast's placement, every candidate scored by its best routing):\n\n");
            sb.append("| instance | layer | copy | optimum | Ballast | Ballast's placement, best routing | best-routing search "
                    + "| its gap | passes | LPs solved | its placement, quota rule | its placement |\n");
            sb.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
            for (InstanceResult r : results) {
                for (LayerRow x : r.rows()) {
                    Routed rt = x.routed();
                    if (rt == null) {
                        continue;
                    }
                    ExactSolution e = x.exact();
                    sb.append(String.format(Locale.ROOT, "| %s | %d | %d | %s | %.3f | %s | %s | %s | %d | %d | %s | %s |%n",
                            r.instance().name(), x.layer(), x.copy(), optimum(e.incumbentSec(), e.bestBoundSec(), e.optimal()),
                            x.ballast() * 1e3, ms(rt.ballastPlacement()), ms(rt.search().seconds()),
                            gap(rt.search().seconds(), e.incumbentSec(), e.bestBoundSec(), e.optimal()), rt.search().passes(),
                            rt.search().solves(), ms(rt.searchAtQuotaRule()), describe(rt.search().placement())));
                }
            }
        }
        return sb.toString();
    }

    /**
     * Against the {@code <= 3 %} target: met when even the gap to the best bound is within it, missed when even the
     * gap to the incumbent is above it (or the optimum is proven), open otherwise.
     */
    private static String verdict(double value, double opt, double best, boolean proven) {
        if (value / best - 1 <= TARGET_GAP + 1e-12) {
            return "met";
        }
        return proven || value / opt - 1 > TARGET_GAP ? "missed" : "open";
    }

    /** An instance's placement-and-routing cells: step figures like the other columns, "–" where a layer has none (fssdp). */
    private static String apartCells(InstanceResult r, double opt, double best, boolean proven) {
        if (!r.rows().stream().allMatch(x -> x.routed() != null)) {
            return "– | – | – | –";
        }
        double searched = r.step(x -> x.routed().search().seconds());
        return String.join(" | ", ms(r.step(x -> x.routed().ballastPlacement())), ms(searched),
                gap(searched, opt, best, proven), ms(r.step(x -> x.routed().searchAtQuotaRule())));
    }

    private static String ms(double seconds) {
        return String.format(Locale.ROOT, "%.3f", seconds * 1e3);
    }

    private static String optimum(double incumbent, double best, boolean proven) {
        return proven ? String.format(Locale.ROOT, "%.3f", incumbent * 1e3)
                : String.format(Locale.ROOT, "%.3f..%.3f", best * 1e3, incumbent * 1e3);
    }

    /** plan / optimum - 1; a range against best bound and incumbent when the optimum is not proven. */
    private static String gap(double plan, double incumbent, double best, boolean proven) {
        return proven ? String.format(Locale.ROOT, "%.2f %%", (plan / incumbent - 1) * 100)
                : String.format(Locale.ROOT, "%.2f..%.2f %%", (plan / incumbent - 1) * 100, (plan / best - 1) * 100);
    }

    private static String tightness(double bound, double incumbent, double best, boolean proven) {
        return proven ? String.format(Locale.ROOT, "%.3f", bound / incumbent)
                : String.format(Locale.ROOT, "%.3f..%.3f", bound / incumbent, bound / best);
    }

    /** GPU lists, masters off their home marked with '*'. */
    static String describe(LayerPlacement p) {
        StringBuilder sb = new StringBuilder();
        for (int g = 0; g < p.gpus(); g++) {
            sb.append(g == 0 ? "" : " ").append('[');
            for (int i = 0; i < p.expertCount(g); i++) {
                int e = p.expertAt(g, i);
                sb.append(i == 0 ? "" : ",").append(e).append(p.master(e) == g && p.hasMovedMasters()
                        && g != StaticLayout.home(e, p.gpus(), p.experts()) ? "*" : "");
            }
            sb.append(']');
        }
        return sb.toString();
    }
}
