package dev.ballast.tools.exact;

import dev.ballast.planner.model.LayerPlacement;

/**
 * What the MILP found for one {@link LayerProblem}.
 *
 * @param incumbentSec the best plan's layer time under the MILP (continuous routing; masters as the problem allows)
 * @param bestBoundSec no plan is faster: the incumbent when proven optimal, else the solver's best bound or the
 *                     closed-form bound, whichever is higher
 * @param optimal      whether the solver proved the incumbent optimal (within its gap tolerance) before the limit
 * @param placement    the incumbent's placement, masters included
 * @param millis       solve time (wall)
 */
public record ExactSolution(double incumbentSec, double bestBoundSec, boolean optimal, LayerPlacement placement,
                            long millis) {
    /** The relative MIP gap: (incumbent - best bound) / incumbent; 0 when proven optimal. */
    public double mipGap() {
        return incumbentSec == 0 ? 0 : (incumbentSec - bestBoundSec) / incumbentSec;
    }
}
