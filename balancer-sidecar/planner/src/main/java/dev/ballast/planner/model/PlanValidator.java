package dev.ballast.planner.model;

/**
 * Checks a plan against its contract: every expert has a copy in every group and layer, no GPU exceeds its slots,
 * and in replicate mode every home expert stays materialized on its home GPU.
 */
public final class PlanValidator {
    private PlanValidator() {
    }

    /** Throws IllegalStateException naming the first violation; homes must stay in replicate mode. */
    public static void validate(Plan plan, int slotsPerGpu) {
        validate(plan, slotsPerGpu, true);
    }

    /**
     * As {@link #validate(Plan, int)}; {@code requireHomes} false accepts plans that move compute off a home GPU
     * (EPLB's placements: the owner still keeps master weights and optimizer state).
     */
    public static void validate(Plan plan, int slotsPerGpu, boolean requireHomes) {
        int ep = plan.parallelism().ep();
        for (int l = 0; l < plan.layers(); l++) {
            for (int c = 0; c < plan.parallelism().dp(); c++) {
                LayerPlacement p = plan.placement(l, c);
                for (int e = 0; e < plan.experts(); e++) {
                    if (p.copies(e) == 0) {
                        throw new IllegalStateException("layer " + l + " group " + c + ": expert " + e + " has no copy");
                    }
                    if (requireHomes && plan.mode() == Mode.REPLICATE && !p.holds(StaticLayout.home(e, ep, plan.experts()), e)) {
                        throw new IllegalStateException("layer " + l + " group " + c + ": expert " + e + " missing on its home GPU");
                    }
                }
                for (int g = 0; g < ep; g++) {
                    if (p.expertCount(g) > slotsPerGpu) {
                        throw new IllegalStateException("layer " + l + " group " + c + ": GPU " + g + " holds "
                                + p.expertCount(g) + " experts, over " + slotsPerGpu + " slots");
                    }
                }
            }
        }
    }
}
