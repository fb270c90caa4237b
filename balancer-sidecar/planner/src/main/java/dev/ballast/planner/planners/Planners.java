package dev.ballast.planner.planners;

import dev.ballast.planner.ballast.BallastPlanner;

import java.util.List;

/** Planner lookup by the names used on the command line and in TrainingJob.spec.balancer.planner. */
public final class Planners {
    public static final List<String> NAMES = List.of("static", "eplb", "ballast", "ballast-scratch");

    private Planners() {
    }

    /**
     * {@link #byName}, with Ballast's planners planning up to {@code threads} layers at once (the plan is the same for
     * any value; the other planners are serial).
     */
    public static Planner byName(String name, int threads) {
        return switch (name) {
            case "ballast" -> new BallastPlanner(true, threads);
            case "ballast-scratch" -> new BallastPlanner(false, threads);
            case "ballast-routed" -> new BallastPlanner(false, threads, true, true);
            default -> byName(name);
        };
    }

    public static Planner byName(String name) {
        return switch (name) {
            case "static" -> new StaticPlanner();
            case "eplb" -> new EplbPlanner(EplbPlanner.Policy.AUTO, 1);
            case "eplb-hierarchical" -> new EplbPlanner(EplbPlanner.Policy.HIERARCHICAL, 0);
            case "eplb-global" -> new EplbPlanner(EplbPlanner.Policy.GLOBAL, 1);
            case "ballast" -> new BallastPlanner(true);
            case "ballast-scratch" -> new BallastPlanner(false);
            case "ballast-even-shards" -> new BallastPlanner(true, 1, false);
            case "ballast-routed" -> new BallastPlanner(false, 1, true, true);
            default -> throw new IllegalArgumentException("unknown planner '" + name + "' (known: static, eplb,"
                    + " eplb-hierarchical, eplb-global, ballast, ballast-scratch, ballast-even-shards, ballast-routed)");
        };
    }
}
