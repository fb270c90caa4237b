package dev.ballast.planner.policy;

import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.planners.Routing;
import dev.ballast.planner.quota.QuotaResult;

/**
 * Compute-only score of a placement on (predicted) loads, as routed by the planner's own rule: per (layer, copy) the
 * busiest GPU's tokens over the mean, averaged ({@code imbalance}), and the sum of the busiest GPUs' tokens
 * ({@code busiestTokens}). The re-plan policy's gain check reads the imbalance; status.balancer reports both sides.
 */
public record PlacementScore(double imbalance, double busiestTokens) {

    /** Scores {@code plan}, or the static layout when {@code plan} is null. */
    public static PlacementScore of(PlanningContext ctx, Routing routing, Plan plan, ModelLoads loads) {
        return breakdown(ctx, routing, plan, loads).whole();
    }

    /**
     * The whole-model score and, per layer, the imbalance averaged over the layer's copies that carried tokens
     * (1.0 for a layer without any).
     */
    public record Breakdown(PlacementScore whole, double[] layers) {
    }

    /** {@link #of} with the per-layer imbalance from the same routing pass. */
    public static Breakdown breakdown(PlanningContext ctx, Routing routing, Plan plan, ModelLoads loads) {
        LayerPlacement stat = LayerPlacement.staticLayout(ctx.parallelism().ep(), ctx.shape().experts());
        double imbalanceSum = 0;
        double busiestSum = 0;
        int scored = 0;
        double[] layers = new double[loads.layers()];
        for (int l = 0; l < loads.layers(); l++) {
            double layerSum = 0;
            int layerScored = 0;
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
                    double imbalance = max / ((double) sum / r.gpus());
                    imbalanceSum += imbalance;
                    layerSum += imbalance;
                    scored++;
                    layerScored++;
                }
                busiestSum += max;
            }
            layers[l] = layerScored == 0 ? 1.0 : layerSum / layerScored;
        }
        return new Breakdown(new PlacementScore(scored == 0 ? 1.0 : imbalanceSum / scored, busiestSum), layers);
    }

    /** How much faster {@code after} is than this (the static layout's) score, by busiest-GPU tokens; 1 when idle. */
    public double speedupTo(PlacementScore after) {
        return after.busiestTokens > 0 ? busiestTokens / after.busiestTokens : 1.0;
    }
}
