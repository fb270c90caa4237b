package dev.ballast.tools.bench;

import dev.ballast.planner.model.Plan;
import dev.ballast.planner.planners.PlanRequest;
import dev.ballast.planner.planners.Planner;
import dev.ballast.planner.planners.Planners;
import dev.ballast.planner.planners.Routing;

import java.util.Locale;

/**
 * A planner's placements scored with another routing, for the bench's placement × routing rows: {@code eplb@quota-rule}
 * is EPLB's placement with Ballast's quota rule, {@code ballast@equal-split} Ballast's placement with EPLB's split.
 */
record RoutedPlanner(Planner placement, Routing routing) implements Planner {
    /** A planner name, optionally followed by {@code @equal-split} or {@code @quota-rule}. */
    static Planner byName(String name) {
        int at = name.indexOf('@');
        if (at < 0) {
            return Planners.byName(name);
        }
        String r = name.substring(at + 1);
        Routing routing = switch (r) {
            case "equal-split" -> Routing.EQUAL_SPLIT;
            case "quota-rule" -> Routing.QUOTA_RULE;
            default -> throw new IllegalArgumentException("unknown routing '" + r + "' in '" + name
                    + "' (known: equal-split, quota-rule)");
        };
        return new RoutedPlanner(Planners.byName(name.substring(0, at)), routing);
    }

    static String routingName(Routing r) {
        return r.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    @Override
    public String name() {
        return placement.name() + "@" + routingName(routing);
    }

    @Override
    public Plan plan(PlanRequest request) {
        return placement.plan(request);
    }
}
