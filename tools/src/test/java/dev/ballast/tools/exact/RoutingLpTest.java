package dev.ballast.tools.exact;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.StaticLayout;
import dev.ballast.planner.route.RoutingLp;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/** The planner's own routing LP ({@link RoutingLp}, pure Java) against GLOP's ({@link BestRouting}) on one model. */
class RoutingLpTest {
    @Test
    void thePlannersRoutingLpFindsGlopsOptimumOnRandomPlacements() {
        SplittableRandom rnd = new SplittableRandom(11);
        int[][] shapes = {{2, 2, 1, 4}, {2, 4, 1, 16}, {4, 2, 2, 8}, {1, 4, 1, 8}};
        for (int[] sh : shapes) {
            int nodes = sh[0];
            int perNode = sh[1];
            int racks = sh[2];
            int experts = sh[3];
            int ep = nodes * perNode;
            int[] node = new int[ep];
            int[] rack = new int[ep];
            for (int g = 0; g < ep; g++) {
                node[g] = g / perNode;
                rack[g] = node[g] * racks / nodes;
            }
            GroupTopology gt = GroupTopology.ofPlaces(node, rack, Hardware.DEFAULT);
            for (int round = 0; round < 6; round++) {
                MoeShape shape = MoeShape.generic("r" + round, 1, experts, 1 + round % 2);
                int slots = experts / ep + 1 + round % 3;
                long[] counts = new long[ep * experts];
                for (int i = 0; i < counts.length; i++) {
                    counts[i] = rnd.nextInt(5) == 0 ? 0 : 1 + rnd.nextInt(round % 2 == 0 ? 300 : 40_000);
                }
                CostModel cost = new CostModel(shape, Mode.REPLICATE, 50);
                LayerProblem problem = new LayerProblem(gt, counts, shape, Mode.REPLICATE, slots, 50, Masters.HOME);
                LayerPlacement p = randomPlacement(rnd, ep, experts, slots);
                String what = ep + " GPUs, " + experts + " experts, round " + round + ": " + p;
                double glop;
                try (BestRouting best = new BestRouting(problem)) {
                    glop = best.seconds(p);
                }
                RoutingLp.Routed lp = RoutingLp.solve(gt, cost, p, counts);
                assertThat(lp.seconds()).as(what).isCloseTo(glop, offset(glop * 1e-7));
                // The flows route every token, only to copies, and never negatively.
                int copies = p.totalCopies();
                for (int s = 0; s < ep; s++) {
                    for (int e = 0; e < experts; e++) {
                        double sum = 0;
                        for (int j = p.copyStart(e); j < p.copyStart(e) + p.copies(e); j++) {
                            double y = lp.tokens()[s * copies + j];
                            assertThat(y).as(what).isGreaterThanOrEqualTo(-1e-6);
                            sum += y;
                        }
                        assertThat(sum).as(what).isCloseTo(counts[s * experts + e],
                                offset(1e-6 * (1 + counts[s * experts + e])));
                    }
                }
                assertThat(RoutingLp.solve(gt, cost, p, counts)).as(what + ": deterministic")
                        .satisfies(again -> {
                            assertThat(again.seconds()).isEqualTo(lp.seconds());
                            assertThat(again.tokens()).isEqualTo(lp.tokens());
                        });
            }
        }
    }

    /** Every home held, the other slots filled at random with experts the GPU lacks. */
    static LayerPlacement randomPlacement(SplittableRandom rnd, int ep, int experts, int slots) {
        int[][] lists = new int[ep][];
        for (int g = 0; g < ep; g++) {
            boolean[] held = new boolean[experts];
            int n = 0;
            for (int e = 0; e < experts; e++) {
                if (StaticLayout.home(e, ep, experts) == g) {
                    held[e] = true;
                    n++;
                }
            }
            int extra = rnd.nextInt(slots - n + 1);
            for (int i = 0; i < extra; i++) {
                int e = rnd.nextInt(experts);
                if (!held[e]) {
                    held[e] = true;
                    n++;
                }
            }
            int[] l = new int[n];
            int k = 0;
            for (int e = 0; e < experts; e++) {
                if (held[e]) {
                    l[k++] = e;
                }
            }
            lists[g] = l;
        }
        return LayerPlacement.of(experts, lists);
    }
}
