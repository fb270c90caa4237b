package dev.ballast.planner.planners;

import dev.ballast.planner.model.Plan;

/** Always the static layout (docs/quota-rule.md): the floor every other planner is measured against. */
public final class StaticPlanner implements Planner {
    @Override
    public String name() {
        return "static";
    }

    @Override
    public Routing routing() {
        return Routing.QUOTA_RULE;
    }

    @Override
    public Plan plan(PlanRequest r) {
        PlanningContext c = r.context();
        return Plan.staticPlan(r.version(), r.earliestStep(), c.mode(), c.shape().layers(), c.shape().experts(), c.parallelism());
    }
}
