package dev.ballast.planner.route;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.LinkClass;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.planners.Routing;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

class RoutingLpTest {
    private static final Hardware HW = Hardware.DEFAULT;

    /**
     * Two GPUs on one node; source 0 sends n tokens to expert 0, held at home on GPU 0 and as a copy on GPU 1. Moving y
     * of them costs 4 y b on NVLink and the layer is 4 y b + max(k max(n - y, y), P): the optimum is at a corner of
     * that piecewise-linear function, y in {0, n/2, n - P/k}.
     */
    @Test
    void splitsOneSourceAtTheCornerOfItsPiecewiseLinearTime() {
        GroupTopology gt = GroupTopology.ofPlaces(new int[] {0, 0}, new int[] {0, 0}, HW);
        LayerPlacement p = LayerPlacement.of(2, new int[][] {{0}, {0, 1}});
        for (long n : new long[] {40, 4_000, 400_000}) {
            MoeShape shape = MoeShape.generic("hand", 1, 2, 1);
            CostModel cost = new CostModel(shape, Mode.REPLICATE, 50);
            long[] counts = {n, 0, 0, 0};
            double k = cost.computeSeconds(1, HW);
            double b = shape.tokenBytes() / HW.bytesPerSecond(LinkClass.NVLINK);
            double param = Math.max(shape.weightBytesPerExpert(), shape.gradBytesPerExpert())
                    / HW.bytesPerSecond(LinkClass.NVLINK);
            double best = Double.POSITIVE_INFINITY;
            for (double y : new double[] {0, n / 2.0, Math.max(0, n - param / k)}) {
                best = Math.min(best, 4 * y * b + Math.max(k * Math.max(n - y, y), param));
            }
            RoutingLp.Routed r = RoutingLp.solve(gt, cost, p, counts);
            assertThat(r.seconds()).as("n = " + n).isCloseTo(best, offset(best * 1e-9));
            assertThat(r.tokens()[p.copyIndex(0, 0)] + r.tokens()[p.copyIndex(1, 0)]).isCloseTo(n, offset(1e-9 * n));
        }
    }

    /** The rule routes whole tokens one way among many; the LP's continuous optimum is never slower. */
    @Test
    void neverSlowerThanTheQuotaRule() {
        SplittableRandom rnd = new SplittableRandom(2);
        GroupTopology gt = GroupTopology.ofPlaces(new int[] {0, 0, 1, 1}, new int[] {0, 0, 0, 0}, HW);
        MoeShape shape = MoeShape.generic("r", 1, 6, 2);
        CostModel cost = new CostModel(shape, Mode.REPLICATE, 50);
        LayerPlacement p = LayerPlacement.of(6, new int[][] {{0, 1, 4}, {1, 2}, {2, 3, 5}, {0, 4, 5}});
        for (int round = 0; round < 20; round++) {
            long[] counts = new long[4 * 6];
            for (int i = 0; i < counts.length; i++) {
                counts[i] = rnd.nextInt(20_000);
            }
            double rule = cost.layer(gt, p, Routing.QUOTA_RULE.route(gt, p, counts), null, null).totalSec()
                    - CostModel.quotaRuleSeconds(4, 6, p.totalCopies());
            assertThat(RoutingLp.solve(gt, cost, p, counts).seconds()).as("round " + round)
                    .isLessThanOrEqualTo(rule * (1 + 1e-9));
        }
    }

    @Test
    void fssdpIsRefused() {
        GroupTopology gt = GroupTopology.ofPlaces(new int[] {0, 0}, new int[] {0, 0}, HW);
        MoeShape shape = MoeShape.generic("f", 1, 2, 1);
        assertThatThrownBy(() -> RoutingLp.solve(gt, new CostModel(shape, Mode.FSSDP, 50),
                LayerPlacement.staticLayout(2, 2), new long[4]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replicate mode only");
    }
}
