package dev.ballast.tools.bench;

import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.Planners;
import dev.ballast.tools.synth.Scenarios;
import dev.ballast.tools.synth.SyntheticTrace;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The incremental re-plan's target on the fast drift scenario (docs/BENCHMARKS.md targets table; the bench checks the
 * slow one too): within 0.01 of from-scratch re-plans' fraction of ideal, moving at most 10 % of their bytes. Scored
 * causally at 8x8 as the docs suite scores it; every figure it checks is a function of the input (EvaluatorTest).
 */
class IncrementalTargetTest {
    @Test
    void incrementalReplansOnFastDriftStayWithinAHundredthOfFromScratchAtATenthOfTheBytes() {
        SyntheticTrace trace = new SyntheticTrace(Scenarios.byName("drift-fast"));
        Topology topo = Topology.parse("nodes=8,gpusPerNode=8,racks=2");
        BenchResult inc = Evaluator.run(trace, topo, Planners.byName("ballast"), BenchConfig.defaults(),
                trace.spec().replanInterval());
        BenchResult scratch = Evaluator.run(trace, topo, Planners.byName("ballast-scratch"), BenchConfig.defaults(),
                trace.spec().replanInterval());
        assertThat(inc.fractionOfIdeal()).isGreaterThanOrEqualTo(scratch.fractionOfIdeal() - 0.01);
        assertThat(inc.paramBytesMoved()).isLessThanOrEqualTo(0.10 * scratch.paramBytesMoved());
    }
}
