package dev.ballast.planner.ballast;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.quota.QuotaRule;
import dev.ballast.planner.route.RoutingLp;

import java.util.function.ToDoubleFunction;

/**
 * The last step of {@code ballast-routed} in small layers: a placement search in which every candidate is scored by
 * its best routing ({@link RoutedSearch}, {@link RoutingLp}), then that routing as the placement's planned split
 * (docs/quota-rule.md, "Planned split"), kept only where the cost model predicts it faster than the rule-routed plan
 * it started from. Each candidate costs one LP, so the search is bounded by layer size, not by a clock: the plan stays
 * a function of its inputs.
 */
public final class RoutedPlan {
    /** Largest EP × experts searched: at 8 GPUs × 16 experts a descent weighs about 2,500 placements in 0.2-0.6 s. */
    public static final int MAX_GROUP_EXPERTS = 256;
    /**
     * Kicks of the iterated descent ({@link RoutedSearch#kicked}) after the first descent: 100 found the proven optimum
     * of both exact16 top-1 layers (docs/benchmarks-exact.md), about 20 s a layer.
     */
    public static final int KICKS = 100;
    /**
     * No kicks where the descent ends within this fraction of the closed-form lower bound (compute-bound layers, such
     * as Mixtral's, end within 0.3 %): no search can gain more than that distance.
     */
    static final double NEAR_BOUND = 0.005;
    private static final long KICK_SEED = 20261206L;

    private RoutedPlan() {
    }

    /** Whether the search runs for a layer of {@code experts} experts over {@code gt} in {@code mode}. */
    public static boolean applies(GroupTopology gt, int experts, Mode mode) {
        return mode == Mode.REPLICATE && gt.ep() * experts <= MAX_GROUP_EXPERTS;
    }

    /**
     * From {@code start} (the layer's rule-routed placement: every home held, masters at home), the searched placement
     * with its planned split, or {@code start} where that is not predicted faster on {@code counts}.
     */
    public static LayerPlacement improve(GroupTopology gt, CostModel cost, long[] counts, LayerPlacement start,
                                         int slotsPerGpu) {
        ToDoubleFunction<LayerPlacement> bestRouting = RoutingLp.scorer(gt, cost, counts);
        RoutedSearch.Result r = RoutedSearch.descend(bestRouting, start, slotsPerGpu);
        if (r.seconds() > cost.lowerBound(gt, counts, slotsPerGpu) * (1 + NEAR_BOUND)) {
            r = RoutedSearch.kicked(bestRouting, r, slotsPerGpu, KICKS, KICK_SEED);
        }
        LayerPlacement p = r.placement();
        LayerPlacement routed = p.withRoutes(weights(gt, p, counts, RoutingLp.solve(gt, cost, p, counts).tokens()));
        return seconds(gt, cost, routed, counts) < seconds(gt, cost, start, counts) ? routed : start;
    }

    private static double seconds(GroupTopology gt, CostModel cost, LayerPlacement p, long[] counts) {
        return cost.layer(gt, p, QuotaRule.apply(gt, p, counts, null), null, null).totalSec();
    }

    /**
     * Route weights from a routing's token flows ({@code tokens[source * totalCopies + copy]}): each (source,
     * multi-copy expert)'s flows scaled to {@link LayerPlacement#ROUTE_WEIGHT_SUM_MAX}, floors first, the rest one each
     * to the largest fractions (ties to the lower copy). A source that sent the expert nothing weighs its nearest copy
     * alone (lowest link class, then lowest GPU).
     */
    static int[] weights(GroupTopology gt, LayerPlacement p, long[] counts, double[] tokens) {
        int ep = p.gpus();
        int experts = p.experts();
        int copies = p.totalCopies();
        int total = LayerPlacement.ROUTE_WEIGHT_SUM_MAX;
        int[] w = new int[ep * copies];
        double[] frac = new double[copies];
        for (int s = 0; s < ep; s++) {
            for (int e = 0; e < experts; e++) {
                int first = p.copyStart(e);
                int k = p.copies(e);
                if (k < 2) {
                    continue;
                }
                double sum = 0;
                for (int j = first; j < first + k; j++) {
                    sum += Math.max(0, tokens[s * copies + j]);
                }
                if (counts[s * experts + e] == 0 || sum <= 0) {
                    int near = first;
                    for (int j = first + 1; j < first + k; j++) {
                        if (gt.linkClass(s, p.copyGpu(j)) < gt.linkClass(s, p.copyGpu(near))) {
                            near = j;
                        }
                    }
                    w[s * copies + near] = total;
                    continue;
                }
                int left = total;
                for (int j = first; j < first + k; j++) {
                    double x = Math.max(0, tokens[s * copies + j]) / sum * total;
                    int f = (int) Math.min(total, Math.floor(x));
                    w[s * copies + j] = f;
                    frac[j] = x - f;
                    left -= f;
                }
                for (; left < 0; left++) { // floors of rounded-up fractions: take the excess from the largest weight
                    int top = first;
                    for (int j = first + 1; j < first + k; j++) {
                        if (w[s * copies + j] > w[s * copies + top]) {
                            top = j;
                        }
                    }
                    w[s * copies + top]--;
                }
                for (; left > 0; left--) {
                    int pick = first;
                    for (int j = first + 1; j < first + k; j++) {
                        if (frac[j] > frac[pick]) {
                            pick = j;
                        }
                    }
                    w[s * copies + pick]++;
                    frac[pick] = -1;
                }
            }
        }
        return w;
    }
}
