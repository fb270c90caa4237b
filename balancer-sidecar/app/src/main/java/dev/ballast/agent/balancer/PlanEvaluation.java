package dev.ballast.agent.balancer;

import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.planners.Routing;
import dev.ballast.planner.quota.QuotaResult;

/**
 * Compute-only scores of a placement on (predicted) loads: per (layer, copy) the busiest GPU's tokens over the mean,
 * averaged; and the speedup as the sum of busiest-GPU loads of the static layout over that of the plan.
 * These are the numbers written to status.balancer (imbalanceBefore / imbalanceAfter / predictedSpeedup).
 */
final class PlanEvaluation {
    private PlanEvaluation() {
    }

    /** Busiest-GPU token sums and mean-normalised imbalance; {@code plan == null} scores the static layout. */
    static double[] score(PlanningContext ctx, Routing routing, Plan plan, ModelLoads loads) {
        int ep = ctx.parallelism().ep();
        LayerPlacement stat = LayerPlacement.staticLayout(ep, ctx.shape().experts());
        double imbalanceSum = 0;
        double maxSum = 0;
        int n = 0;
        for (int l = 0; l < loads.layers(); l++) {
            for (int c = 0; c < loads.dp(); c++) {
                LayerPlacement p = plan == null ? stat : plan.placement(l, c);
                QuotaResult r = routing.route(ctx.groupOfLayer(l, c), p, loads.counts(l, c));
                long max = 0;
                long sum = 0;
                for (int g = 0; g < r.gpus(); g++) {
                    max = Math.max(max, r.gpuLoad(g));
                    sum += r.gpuLoad(g);
                }
                if (sum > 0) {
                    imbalanceSum += max / ((double) sum / r.gpus());
                    n++;
                }
                maxSum += max;
            }
        }
        return new double[] {n == 0 ? 1.0 : imbalanceSum / n, maxSum};
    }
}
