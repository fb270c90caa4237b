package dev.ballast.tools.bench;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.load.SourceMapping;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.planners.Planners;
import dev.ballast.planner.policy.ReplanPolicy;
import dev.ballast.tools.synth.Scenarios;
import dev.ballast.tools.synth.SyntheticTrace;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

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
    void movedBytesPerStepAreEveryReplanAfterTheFirstOverTheScoredSteps() {
        // Static re-plans six times and never moves a copy; ballast re-plans at every gain check on drift-fast, so
        // its per-step figure is its per-re-plan mean times the re-plans after the first, over the scored steps.
        assertThat(run("static", 50).movedBytesPerStep()).isZero();
        BenchResult b = Evaluator.run(new SyntheticTrace(Scenarios.byName("drift-fast")), TOPO, Planners.byName("ballast"),
                BenchConfig.defaults().withMaxSteps(120), 50);
        assertThat(b.replans()).isGreaterThan(3);
        assertThat(b.movedBytesPerStep()).isPositive()
                .isCloseTo(b.paramBytesMoved() * (b.replans() - 1) / b.scoredSteps(), within(1e-6 * b.paramBytesMoved()));
    }

    @Test
    void everyFigureButPlanTimeReproducesExactly() {
        BenchResult a = run("ballast", 10);
        BenchResult b = run("ballast", 10);
        assertThat(b).usingRecursiveComparison().ignoringFields("planMillisMedian", "planMillisP99").isEqualTo(a);
    }

    @Test
    void theQuotaRulesWorkIsChargedToPlansItRoutesAndOnlyToThem() {
        // Static's experts are single-copy, so the rule and the equal split send the same flows: the planned step
        // times differ by exactly the rule's CPU time per layer (docs/cost-model.md, "Quota rule work").
        SyntheticTrace t = new SyntheticTrace(Scenarios.byName("exact16-top1"));
        Topology topo = Topology.parse("nodes=2,gpusPerNode=4");
        BenchConfig cfg = BenchConfig.defaults();
        BenchResult rule = Evaluator.run(t, topo, RoutedPlanner.byName("static"), cfg, 50);
        BenchResult split = Evaluator.run(t, topo, RoutedPlanner.byName("static@equal-split"), cfg, 50);
        var h = t.header();
        MoeShape shape = MoeShape.forModel(h.model(), h.layers(), h.experts(), h.topK());
        Parallelism par = Parallelism.resolve(topo.gpus(), h.experts(), null, 1);
        PlanningContext ctx = new PlanningContext(topo, par, shape, Mode.REPLICATE, cfg.redundantSlots(), 50);
        ModelLoads loads = SourceMapping.toGpus(t.counts(0), par, h.experts(), (long) cfg.tokensPerGpu() * h.topK());
        CostModel cost = ctx.newCostModel();
        double ideal = 0;
        for (int l = 0; l < h.layers(); l++) {
            ideal += cost.ideal(ctx.group(0, 0), loads.counts(l, 0)).totalSec();
        }
        double perLayer = CostModel.quotaRuleSeconds(par.ep(), h.experts(), h.experts());
        assertThat(rule.scoredSteps()).isEqualTo(1);
        assertThat(perLayer).isGreaterThan(0);
        assertThat(ideal / rule.fractionOfIdeal() - ideal / split.fractionOfIdeal())
                .isCloseTo(h.layers() * perLayer, within(perLayer * 1e-3));
    }
}
