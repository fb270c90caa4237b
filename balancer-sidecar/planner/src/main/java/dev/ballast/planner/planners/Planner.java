package dev.ballast.planner.planners;

import dev.ballast.planner.model.Plan;

/** A placement planner. Implementations are deterministic: the same request gives an equal plan. */
public interface Planner {
    String name();

    /** How this planner's plans split tokens at run time. */
    Routing routing();

    Plan plan(PlanRequest request);
}
