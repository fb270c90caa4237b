package dev.ballast.tools.bench;

import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.Planners;
import dev.ballast.planner.policy.ReplanPolicy;
import dev.ballast.tools.synth.Scenarios;
import dev.ballast.tools.synth.SyntheticTrace;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The bench drives the balancer's own {@link ReplanPolicy}, so its re-plan counts are the policy's. */
class EvaluatorTest {
    static final Topology TOPO = Topology.parse("nodes=2,gpusPerNode=8,racks=1");

    static BenchResult run(String planner, int interval) {
        return Evaluator.run(new SyntheticTrace(Scenarios.byName("zipf-top1-hot")), TOPO, Planners.byName(planner),
                BenchConfig.defaults(), interval);
    }

    @Test
    void aPlanInUseAboveTheGainThresholdIsReplacedAtEveryGainCheck() {
        // The static layout stays far above 1.1 on a top-1 Zipf trace: after the first plan (before step 1) the gain
        // check replans once a fifth of the interval (10 steps) has passed, i.e. before steps 11, 21, 31, 41 and 51.
        BenchResult stat = run("static", 50);
        assertThat(stat.imbalance()).isGreaterThan(1 + ReplanPolicy.GAIN_THRESHOLD);
        assertThat(stat.replans()).isEqualTo(6);
        assertThat(stat.scoredSteps()).isEqualTo(59);
    }

    @Test
    void aBalancedPlanIsKeptForTheWholeInterval() {
        BenchResult ballast = run("ballast", 50);
        assertThat(ballast.imbalance()).isLessThan(1 + ReplanPolicy.GAIN_THRESHOLD);
        assertThat(ballast.replans()).as("before steps 1 and 51").isEqualTo(2);
        assertThat(run("ballast", 20).replans()).as("before steps 1, 21 and 41").isEqualTo(3);
    }

    @Test
    void everyFigureButPlanTimeReproducesExactly() {
        BenchResult a = run("ballast", 10);
        BenchResult b = run("ballast", 10);
        assertThat(b).usingRecursiveComparison().ignoringFields("planMillisMedian", "planMillisP99").isEqualTo(a);
    }
}
