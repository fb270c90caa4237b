package dev.ballast.tools.jmh;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.load.SourceMapping;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.Planners;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.tools.synth.Scenarios;
import dev.ballast.tools.synth.SyntheticTrace;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Whole-model placement: 60 layers × 256 experts × 64 GPUs (named synthetic input {@code whole-model}), one thread.
 * Run: {@code bin/ballast jmh tools -f 1 -wi 3 -i 5 PlannerBench}
 */
@State(Scope.Benchmark)
@BenchmarkMode(org.openjdk.jmh.annotations.Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class PlannerBench {
    PlanRequest request;
    PlanRequest incremental;

    @Setup
    public void setup() {
        SyntheticTrace t = new SyntheticTrace(Scenarios.byName("whole-model"));
        Topology topo = Topology.parse("nodes=8,gpusPerNode=8,racks=2");
        MoeShape shape = MoeShape.forModel(t.header().model(), 60, 256, 8);
        Parallelism par = Parallelism.resolve(64, 256, null, 1);
        PlanningContext ctx = new PlanningContext(topo, par, shape, Mode.REPLICATE, 2, 50);
        ModelLoads loads = SourceMapping.toGpus(t.counts(0), par, 256, 8192L * 8);
        request = new PlanRequest(ctx, loads, null, new PlanVersion(0, 1), 0);
        Plan first = Planners.byName("ballast").plan(request);
        incremental = new PlanRequest(ctx, loads, first, new PlanVersion(0, 2), 50);
    }

    @Benchmark
    public Plan wholeModelBallastFromScratch() {
        return Planners.byName("ballast-scratch").plan(request);
    }

    /** The same plan, layers planned on two threads (this machine's two cores); byte-identical to the serial one. */
    @Benchmark
    public Plan wholeModelBallastFromScratchTwoThreads() {
        return Planners.byName("ballast-scratch", 2).plan(request);
    }

    @Benchmark
    public Plan wholeModelBallastIncremental() {
        return Planners.byName("ballast").plan(incremental);
    }

    @Benchmark
    public Plan wholeModelEplb() {
        return Planners.byName("eplb").plan(request);
    }
}
