package dev.ballast.tools.bench;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.cost.LayerCost;
import dev.ballast.planner.load.LoadForecast;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.load.SourceMapping;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.Planner;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.policy.PlacementScore;
import dev.ballast.planner.policy.ReplanPolicy;
import dev.ballast.planner.quota.QuotaResult;
import dev.ballast.tools.trace.TraceHeader;
import dev.ballast.tools.trace.TraceSource;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Scores a planner on a trace (docs/planner.md, "CLI"). Causal: the running balancer's {@link ReplanPolicy} and
 * {@link LoadForecast}, driven step by step on a virtual clock, decide when to plan and from what; the plan scored
 * on step t was computed only from steps before t, scoring from the first step after the first plan; the step on
 * which a new plan is adopted pays its new copies. Oracle (single-step traces, or forced): each step is planned from
 * its own counts and scored in steady state.
 */
public final class Evaluator {
    /**
     * Virtual time per training step. A plan is charged no virtual time (it finishes before the next step), so the
     * policy's duty cycle never holds a re-plan back here; every figure but plan time is a function of the input.
     */
    static final long VIRTUAL_STEP_NANOS = 1_000_000_000L;

    private Evaluator() {
    }

    public static BenchResult run(TraceSource trace, Topology topo, Planner planner, BenchConfig cfg, int interval) {
        TraceHeader h = trace.header();
        MoeShape shape = MoeShape.forModel(h.model(), h.layers(), h.experts(), h.topK());
        Parallelism par = Parallelism.resolve(topo.gpus(), h.experts(), cfg.ep(), cfg.pp());
        PlanningContext ctx = new PlanningContext(topo, par, shape, cfg.mode(), cfg.slotsFor(shape, par), interval);
        int steps = cfg.maxSteps() > 0 ? Math.min(cfg.maxSteps(), trace.steps()) : trace.steps();
        boolean oracle = cfg.forceOracle() || steps == 1;
        long perGpu = (long) cfg.tokensPerGpu() * h.topK();
        CostModel cost = ctx.newCostModel();
        Acc acc = new Acc(ctx);
        List<Double> planMs = new ArrayList<>();
        ReplanPolicy policy = new ReplanPolicy(interval);
        LoadForecast forecast = new LoadForecast(cfg.alpha());
        forecast.restart(h.layers(), par.dp(), par.ep(), h.experts());
        Plan inUse = null;
        Plan beforeInUse = null; // the plan in use before inUse was adopted (null: the static layout)
        long sequence = 0;
        for (int t = 0; t < steps; t++) {
            ModelLoads actual = SourceMapping.toGpus(trace.counts(t), par, h.experts(), perGpu);
            if (oracle) {
                Plan plan = timedPlan(planner, new PlanRequest(ctx, actual, null, new PlanVersion(0, ++sequence),
                        trace.stepNumber(t)), cfg.planRepeats(), planMs);
                acc.moved(null, plan);
                acc.score(planner, cost, plan, null, null, actual);
                continue;
            }
            // The balancer's decision point before step t: everything up to step t - 1 is observed.
            long now = t * VIRTUAL_STEP_NANOS;
            ModelLoads predicted = policy.shouldStart(now) ? forecast.predict() : null;
            if (predicted != null) {
                policy.started(now);
                Plan plan = timedPlan(planner, new PlanRequest(ctx, predicted, inUse, new PlanVersion(0, ++sequence),
                        trace.stepNumber(t)), cfg.planRepeats(), planMs);
                policy.finished(now, 0, 0); // one world generation; the virtual clock charges a plan no time
                acc.moved(inUse, plan);
                acc.score(planner, cost, plan, inUse == null ? staticPlan(ctx) : inUse, inUse, actual);
                beforeInUse = inUse;
                inUse = plan;
            } else if (inUse != null) {
                acc.score(planner, cost, inUse, null, beforeInUse, actual);
            }
            forecast.observe(trace.stepNumber(t), actual);
            Plan planInUse = inUse;
            policy.stepObserved(() -> PlacementScore.of(ctx, planner.routing(), planInUse, forecast.predict()).imbalance());
        }
        Collections.sort(planMs);
        return acc.result(trace.name(), planner.name(), topo.label(), par.toString(), oracle ? "oracle" : "causal",
                cfg.mode().wireName(), percentile(planMs, 0.5), percentile(planMs, 0.99));
    }

    private static Plan staticPlan(PlanningContext ctx) {
        return Plan.staticPlan(new PlanVersion(0, 0), 0, ctx.mode(), ctx.shape().layers(), ctx.shape().experts(), ctx.parallelism());
    }

    /**
     * Plan time is the planning thread's CPU time (one core), not wall time: on a shared machine wall time mostly
     * measures the other tenants. Falls back to wall time where the JVM cannot measure thread CPU time.
     */
    private static Plan timedPlan(Planner planner, PlanRequest req, int repeats, List<Double> planMs) {
        Plan plan = null;
        for (int i = 0; i < Math.max(1, repeats); i++) {
            long t0 = cpuNanos();
            plan = planner.plan(req);
            planMs.add((cpuNanos() - t0) / 1e6);
        }
        return plan;
    }

    static long cpuNanos() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        return mx.isCurrentThreadCpuTimeSupported() ? mx.getCurrentThreadCpuTime() : System.nanoTime();
    }

    /** Nearest-rank percentile of a sorted list. */
    static double percentile(List<Double> sorted, double q) {
        if (sorted.isEmpty()) {
            return 0;
        }
        int idx = (int) Math.ceil(q * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, idx)));
    }

    /** Running sums over scored steps. */
    private static final class Acc {
        final PlanningContext ctx;
        double planned;
        double ideal;
        double bound;
        double imbalanceSum;
        double imbalanceWorst;
        long layerSamples;
        double interTokens;
        double interParams;
        double paramBytes;
        double movedBytes;
        double firstPlanBytes;
        int replans;
        int steps;
        double peakMemory;

        Acc(PlanningContext ctx) {
            this.ctx = ctx;
        }

        /** {@code mastersBefore}: the plan in use before {@code plan} was adopted (null: static), whose masters moved. */
        void score(Planner planner, CostModel cost, Plan plan, Plan adoptedFrom, Plan mastersBefore, ModelLoads actual) {
            Parallelism par = ctx.parallelism();
            int layers = ctx.shape().layers();
            double stepPlanned = 0;
            double stepIdeal = 0;
            double stepBound = 0;
            for (int s = 0; s < par.pp(); s++) {
                double worstPlanned = 0;
                double worstIdeal = 0;
                double worstBound = 0;
                for (int c = 0; c < par.dp(); c++) {
                    GroupTopology gt = ctx.group(s, c);
                    double sumPlanned = 0;
                    double sumIdeal = 0;
                    double sumBound = 0;
                    double mem = 0;
                    for (int l = par.firstLayer(s, layers); l < par.firstLayer(s + 1, layers); l++) {
                        LayerPlacement p = plan.placement(l, c);
                        long[] counts = actual.counts(l, c);
                        QuotaResult r = planner.routing().route(gt, p, counts);
                        LayerCost lc = cost.layer(gt, p, r, adoptedFrom == null ? null : adoptedFrom.placement(l, c),
                                mastersBefore == null ? null : mastersBefore.placement(l, c));
                        LayerCost ic = cost.ideal(gt, counts);
                        double lb = cost.lowerBound(gt, counts, ctx.slotsPerGpu());
                        if (lb > lc.totalSec()) {
                            throw new IllegalStateException("lower bound " + lb + " s above the achieved " + lc.totalSec()
                                    + " s: " + planner.name() + ", layer " + l + ", copy " + c + " (a bug in the bound)");
                        }
                        sumPlanned += lc.totalSec();
                        sumIdeal += ic.totalSec();
                        sumBound += lb;
                        mem += lc.peakMemoryBytes();
                        double imb = lc.imbalance();
                        imbalanceSum += imb;
                        imbalanceWorst = Math.max(imbalanceWorst, imb);
                        layerSamples++;
                        interTokens += lc.interNodeTokenBytes();
                        interParams += lc.interNodeParamBytes();
                        paramBytes += lc.paramBytes();
                    }
                    worstPlanned = Math.max(worstPlanned, sumPlanned);
                    worstIdeal = Math.max(worstIdeal, sumIdeal);
                    worstBound = Math.max(worstBound, sumBound);
                    peakMemory = Math.max(peakMemory, mem);
                }
                stepPlanned += worstPlanned;
                stepIdeal += worstIdeal;
                stepBound += worstBound;
            }
            planned += stepPlanned;
            ideal += stepIdeal;
            bound += stepBound;
            steps++;
        }

        void moved(Plan from, Plan to) {
            long w = ctx.shape().weightBytesPerExpert();
            LayerPlacement staticP = LayerPlacement.staticLayout(ctx.parallelism().ep(), ctx.shape().experts());
            long bytes = 0;
            for (int l = 0; l < to.layers(); l++) {
                for (int c = 0; c < ctx.parallelism().dp(); c++) {
                    LayerPlacement a = from == null ? staticP : from.placement(l, c);
                    LayerPlacement b = to.placement(l, c);
                    for (int g = 0; g < b.gpus(); g++) {
                        for (int i = 0; i < b.expertCount(g); i++) {
                            if (!a.holds(g, b.expertAt(g, i))) {
                                bytes += w;
                            }
                        }
                    }
                }
            }
            if (replans == 0) {
                firstPlanBytes = bytes;
            } else {
                movedBytes += bytes;
            }
            replans++;
        }

        BenchResult result(String trace, String planner, String topo, String par, String mode, String balancerMode,
                           double med, double p99) {
            double n = Math.max(1, steps);
            return new BenchResult(trace, planner, topo, par, mode, balancerMode, steps, replans,
                    planned == 0 ? 1 : ideal / planned, planned == 0 ? 1 : bound / planned, imbalanceSum / Math.max(1, layerSamples), imbalanceWorst,
                    (interTokens + interParams) / n, interTokens / n, interParams / n, paramBytes / n,
                    replans > 1 ? movedBytes / (replans - 1) : firstPlanBytes, med, p99, peakMemory);
        }
    }
}
