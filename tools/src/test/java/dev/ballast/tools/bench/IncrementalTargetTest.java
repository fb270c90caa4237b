package dev.ballast.tools.bench;

import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.Planners;
import dev.ballast.tools.synth.Scenarios;
import dev.ballast.tools.synth.SyntheticTrace;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The incremental re-plan on the fast drift scenario, scored causally at 8x8 as the docs suite scores it; every figure
 * it checks is a function of the input (EvaluatorTest). The target (docs/BENCHMARKS.md targets table) is within 0.01 of
 * from-scratch re-plans' fraction of ideal at no more than a tenth of their bytes over the run. The plan meets the
 * first half and moves 11.6 % of the bytes, so this pins what it reaches (an eighth) against regressions, and the
 * targets table shows the tenth as missed (docs/planner.md, "Bytes over the run").
 */
class IncrementalTargetTest {
    @Test
    void incrementalReplansOnFastDriftStayWithinAHundredthOfFromScratchAtAnEighthOfItsBytesOverTheRun() {
        SyntheticTrace trace = new SyntheticTrace(Scenarios.byName("drift-fast"));
        Topology topo = Topology.parse("nodes=8,gpusPerNode=8,racks=2");
        BenchResult inc = Evaluator.run(trace, topo, Planners.byName("ballast"), BenchConfig.defaults(),
                trace.spec().replanInterval());
        BenchResult scratch = Evaluator.run(trace, topo, Planners.byName("ballast-scratch"), BenchConfig.defaults(),
                trace.spec().replanInterval());
        assertThat(inc.fractionOfIdeal()).isGreaterThanOrEqualTo(scratch.fractionOfIdeal() - 0.01);
        assertThat(inc.movedBytesPerStep()).isLessThanOrEqualTo(0.125 * scratch.movedBytesPerStep());
    }
}
