package dev.ballast.agent.balancer;

import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.planners.Routing;

/**
 * Tokens each GPU of the world computes for one step's loads, summed over the layers it runs, as the planner's own
 * routing sends them: under {@code plan}, or under the static layout when {@code plan} is null (the dashboard's
 * per-GPU "before" and "after"). Pure.
 */
final class GpuLoads {
    private GpuLoads() {
    }

    static long[] of(PlanningContext ctx, Routing routing, Plan plan, ModelLoads loads) {
        Parallelism par = ctx.parallelism();
        LayerPlacement stat = LayerPlacement.staticLayout(par.ep(), ctx.shape().experts());
        long[] perGpu = new long[par.gpus()];
        for (int l = 0; l < loads.layers(); l++) {
            int stage = par.stageOf(l, loads.layers());
            for (int c = 0; c < loads.dp(); c++) {
                var routed = routing.route(ctx.groupOfLayer(l, c), plan == null ? stat : plan.placement(l, c),
                        loads.counts(l, c));
                for (int g = 0; g < routed.gpus(); g++) {
                    perGpu[par.gpu(stage, c, g)] += routed.gpuLoad(g);
                }
            }
        }
        return perGpu;
    }
}
