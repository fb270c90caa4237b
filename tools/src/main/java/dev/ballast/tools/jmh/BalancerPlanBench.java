package dev.ballast.tools.jmh;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.GpuPlace;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.Planners;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.tools.loadbench.LoadBench;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The balancer's own planning call at {@code bin/ballast loadbench}'s scale: 32 nodes × 8 GPUs in 4 racks, EP 64 × 4
 * data-parallel copies, 60 layers × 64 experts, the load generator's drifting Zipf-like counts, one thread (the
 * balancer is pinned to one core there). Every plan after the balancer's first is incremental: {@code steady} re-plans
 * on the loads the plan in use was made for, {@code drifted} after the generator's hot set has shifted by one rank.
 * Run: {@code bin/ballast jmh tools -f 1 -wi 3 -i 5 BalancerPlanBench}
 */
@State(Scope.Benchmark)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class BalancerPlanBench {
    static final int NODES = 32;
    static final int GPUS_PER_NODE = 8;
    static final int LAYERS = 60;
    static final int EXPERTS = 64;
    static final int EP = 64;

    PlanRequest fromScratch;
    PlanRequest steady;
    PlanRequest drifted;

    @Setup
    public void setup() {
        PlanningContext ctx = context();
        ModelLoads now = loads(ctx, 0);
        fromScratch = new PlanRequest(ctx, now, null, new PlanVersion(1, 1), 0);
        Plan first = Planners.byName("ballast").plan(fromScratch);
        steady = new PlanRequest(ctx, now, first, new PlanVersion(1, 2), 50);
        drifted = new PlanRequest(ctx, loads(ctx, LoadBench.DRIFT_EVERY_STEPS), first, new PlanVersion(1, 2),
                LoadBench.DRIFT_EVERY_STEPS);
    }

    /** The loadbench's world as the balancer's {@code PlanningSetup} builds it (one node per pod, 8 nodes per rack). */
    public static PlanningContext context() {
        List<GpuPlace> gpus = new ArrayList<>();
        for (int n = 0; n < NODES; n++) {
            for (int i = 0; i < GPUS_PER_NODE; i++) {
                gpus.add(new GpuPlace(n, n / 8));
            }
        }
        Parallelism par = Parallelism.resolve(gpus.size(), EXPERTS, EP, 1);
        MoeShape shape = new MoeShape("bench", LAYERS, EXPERTS, 8, 0, 2048, 1024, 2, 2, 12, 3);
        return new PlanningContext(Topology.of(gpus, Hardware.DEFAULT), par, shape, Mode.REPLICATE, 2, 50);
    }

    /** The load generator's counts of {@code step}, as every GPU reports them (GPU rank r sends row r % 16). */
    public static ModelLoads loads(PlanningContext ctx, long step) {
        int dp = ctx.parallelism().dp();
        ModelLoads m = new ModelLoads(LAYERS, dp, EP, EXPERTS);
        long[][] rows = new long[LoadBench.ROW_VARIANTS][];
        for (int v = 0; v < rows.length; v++) {
            rows[v] = LoadBench.zipfRow(LAYERS, EXPERTS, v, step);
        }
        for (int l = 0; l < LAYERS; l++) {
            for (int copy = 0; copy < dp; copy++) {
                long[] c = m.counts(l, copy);
                for (int s = 0; s < EP; s++) {
                    long[] row = rows[(copy * EP + s) % rows.length];
                    System.arraycopy(row, l * EXPERTS, c, s * EXPERTS, EXPERTS);
                }
            }
        }
        return m;
    }

    @Benchmark
    public Plan balancerFromScratch() {
        return Planners.byName("ballast").plan(fromScratch);
    }

    @Benchmark
    public Plan balancerIncrementalSteady() {
        return Planners.byName("ballast").plan(steady);
    }

    @Benchmark
    public Plan balancerIncrementalDrifted() {
        return Planners.byName("ballast").plan(drifted);
    }
}
