package dev.ballast.tools.trainbench;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.cost.LayerCost;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.planners.PlanningContext;
import dev.ballast.planner.planners.Routing;

/**
 * The cost model's prediction for a measured run, in milliseconds per step (mean over the measured steps): the
 * busiest rank's expert compute, the four all-to-alls, the exposed parameter traffic and their sum, summed over the
 * MoE layers. Each step is scored on its own counts with the routing the trainer ran: the quota rule for every plan
 * (the reference trainer implements no other; an eplb plan runs as EPLB's placement with the quota rule).
 */
public record Prediction(double computeMs, double allToAllMs, double exposedParamMs, double totalMs) {

    static Prediction of(PlanningContext ctx, Plan plan, MeasuredRun run) {
        CostModel cost = ctx.newCostModel();
        int layers = ctx.shape().layers();
        int experts = ctx.shape().experts();
        double compute = 0;
        double a2a = 0;
        double param = 0;
        for (int s = run.skip(); s < run.steps(); s++) {
            ModelLoads step = BenchPlans.loads(run.logs(), s, layers, experts);
            for (int l = 0; l < layers; l++) {
                GroupTopology gt = ctx.groupOfLayer(l, 0);
                LayerPlacement p = plan.placement(l, 0);
                long[] counts = step.counts(l, 0);
                LayerCost c = cost.layer(gt, p, Routing.QUOTA_RULE.route(gt, p, counts), null);
                compute += c.computeSec();
                a2a += c.allToAllSec();
                param += c.exposedParamSec();
            }
        }
        double n = run.measuredSteps() / 1e3;
        return new Prediction(compute / n, a2a / n, param / n, (compute + a2a + param) / n);
    }
}
