package dev.ballast.agent.balancer;

import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.planners.PlanningContext;

/** The expert weights a new plan moves onto GPUs that did not hold them under the plan it replaces. Pure. */
final class PlanMoves {
    private PlanMoves() {
    }

    /** @param from the plan in use, or null for the static layout */
    static long bytes(PlanningContext ctx, Plan from, Plan to) {
        int ep = ctx.parallelism().ep();
        int experts = ctx.shape().experts();
        LayerPlacement stat = LayerPlacement.staticLayout(ep, experts);
        long copies = 0;
        for (int l = 0; l < ctx.shape().layers(); l++) {
            for (int c = 0; c < ctx.parallelism().dp(); c++) {
                LayerPlacement before = from == null ? stat : from.placement(l, c);
                LayerPlacement after = to.placement(l, c);
                for (int g = 0; g < after.gpus(); g++) {
                    for (int e : after.expertsOn(g)) {
                        if (!before.holds(g, e)) {
                            copies++;
                        }
                    }
                }
            }
        }
        return copies * ctx.shape().weightBytesPerExpert();
    }
}
