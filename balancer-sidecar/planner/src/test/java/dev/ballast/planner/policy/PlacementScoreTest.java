package dev.ballast.planner.policy;

import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.GpuPlace;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.model.Topology;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.Planners;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.planners.Routing;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class PlacementScoreTest {
    /** 4 GPUs on one node, EP 4, one layer of 4 experts, one replica slot per GPU. */
    static PlanningContext context() {
        List<GpuPlace> gpus = new ArrayList<>();
        for (int g = 0; g < 4; g++) {
            gpus.add(new GpuPlace(0, 0));
        }
        Parallelism par = new Parallelism(4, 1, 1);
        MoeShape shape = MoeShape.forModel("m", 1, 4, 1);
        return new PlanningContext(Topology.of(gpus, Hardware.DEFAULT), par, shape, Mode.REPLICATE, 1, 50);
    }

    /** Every source sends {@code perExpert[e]} tokens to expert e. */
    static ModelLoads loads(long... perExpert) {
        ModelLoads m = new ModelLoads(1, 1, 4, 4);
        for (int s = 0; s < 4; s++) {
            System.arraycopy(perExpert, 0, m.counts(0, 0), s * 4, 4);
        }
        return m;
    }

    @Test
    void theStaticLayoutOfASkewedLoadScoresItsBusiestGpuOverTheMean() {
        PlacementScore s = PlacementScore.of(context(), Routing.QUOTA_RULE, null, loads(700, 100, 100, 100));
        // GPU 0 holds expert 0: 2,800 of 4,000 tokens, the mean is 1,000.
        assertThat(s.imbalance()).isCloseTo(2.8, within(1e-9));
        assertThat(s.busiestTokens()).isEqualTo(2_800);
        PlacementScore even = PlacementScore.of(context(), Routing.QUOTA_RULE, null, loads(100, 100, 100, 100));
        assertThat(even.imbalance()).isEqualTo(1.0);
        assertThat(PlacementScore.of(context(), Routing.QUOTA_RULE, null, loads(0, 0, 0, 0)).imbalance())
                .as("an idle layer counts as balanced").isEqualTo(1.0);
    }

    @Test
    void aPlanThatReplicatesTheHotExpertScoresBetterAndItsSpeedupIsTheBusiestRatio() {
        PlanningContext ctx = context();
        ModelLoads skew = loads(700, 100, 100, 100);
        Plan plan = Planners.byName("ballast").plan(new PlanRequest(ctx, skew, null, new PlanVersion(1, 1), 0));
        assertThat(plan.placement(0, 0)).isNotEqualTo(LayerPlacement.staticLayout(4, 4));
        PlacementScore before = PlacementScore.of(ctx, Routing.QUOTA_RULE, null, skew);
        PlacementScore after = PlacementScore.of(ctx, Routing.QUOTA_RULE, plan, skew);
        assertThat(after.imbalance()).isLessThan(before.imbalance());
        assertThat(before.speedupTo(after)).isEqualTo(before.busiestTokens() / after.busiestTokens()).isGreaterThan(1);
        assertThat(before.speedupTo(new PlacementScore(1.0, 0))).as("nothing to route").isEqualTo(1.0);
    }
}
