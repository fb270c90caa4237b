package dev.ballast.planner.planners;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.Plan;

/**
 * Inputs of one planning call: predicted loads, the plan in use (null: the static layout is in use),
 * and the version and earliest adoption step to stamp on the result.
 */
public record PlanRequest(PlanningContext context, ModelLoads predicted, Plan current, PlanVersion version,
                          long earliestStep) {
    public PlanRequest {
        if (predicted.layers() != context.shape().layers() || predicted.dp() != context.parallelism().dp()
                || predicted.ep() != context.parallelism().ep() || predicted.experts() != context.shape().experts()) {
            throw new IllegalArgumentException("predicted loads do not match the model and parallel layout");
        }
    }
}
