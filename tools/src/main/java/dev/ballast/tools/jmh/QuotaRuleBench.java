package dev.ballast.tools.jmh;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.load.SourceMapping;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.Planners;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.quota.EqualSplit;
import dev.ballast.planner.quota.QuotaResult;
import dev.ballast.planner.quota.QuotaRule;
import dev.ballast.tools.synth.Scenarios;
import dev.ballast.tools.synth.SyntheticTrace;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The per-step quota rule on one layer of 256 experts over a 64-GPU EP group (8 nodes × 8, two racks), with the
 * replicas the ballast planner chose for the named whole-model input (target: ≤ 50 µs on one core): layer 0 over and
 * over (its counts stay in cache), and every layer in turn (time per layer; the 60 layers' counts, 7.7 MB, do not).
 * Run: {@code bin/ballast jmh tools -f 1 -wi 3 -i 5 QuotaRuleBench}
 */
@State(Scope.Benchmark)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class QuotaRuleBench {
    static final int LAYERS = 60;
    GroupTopology group;
    LayerPlacement placement;
    long[] counts;
    Plan plan;
    ModelLoads loads;

    @Setup
    public void setup() {
        SyntheticTrace t = new SyntheticTrace(Scenarios.byName("whole-model"));
        Topology topo = Topology.parse("nodes=8,gpusPerNode=8,racks=2");
        MoeShape shape = MoeShape.forModel(t.header().model(), t.header().layers(), 256, 8);
        Parallelism par = Parallelism.resolve(64, 256, null, 1);
        PlanningContext ctx = new PlanningContext(topo, par, shape, Mode.REPLICATE, 2, 50);
        loads = SourceMapping.toGpus(t.counts(0), par, 256, 8192L * 8);
        plan = Planners.byName("ballast-scratch").plan(new PlanRequest(ctx, loads, null, new PlanVersion(0, 1), 0));
        placement = plan.placement(0, 0);
        if (plan.layers() != LAYERS) {
            throw new IllegalStateException("whole-model has " + plan.layers() + " layers, the benchmark counts " + LAYERS);
        }
        group = ctx.group(0, 0);
        counts = loads.counts(0, 0);
    }

    @Benchmark
    public QuotaResult quotaRule256x64() {
        return QuotaRule.apply(group, placement, counts, null);
    }

    @Benchmark
    @OperationsPerInvocation(LAYERS)
    public long quotaRule256x64EveryLayer() {
        long sink = 0;
        for (int l = 0; l < LAYERS; l++) {
            sink += QuotaRule.apply(group, plan.placement(l, 0), loads.counts(l, 0), null).threshold();
        }
        return sink;
    }

    @Benchmark
    public QuotaResult equalSplit256x64() {
        return EqualSplit.apply(placement, counts);
    }
}
