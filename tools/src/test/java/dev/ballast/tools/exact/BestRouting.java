package dev.ballast.tools.exact;

import com.google.ortools.Loader;
import com.google.ortools.linearsolver.MPSolver;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;

/**
 * The best routing of one layer for placements chosen elsewhere: {@link PlacementMilp}'s model with every copy
 * variable fixed to the placement, which leaves a linear program over the token flows (GLOP). The reference the
 * planner's own {@code RoutingLp} is tested against (RoutingLpTest); the bench uses that one. Masters stay at their
 * homes (the regime of every placement Ballast makes). The model is built once per layer; a placement only changes the
 * copy variables' bounds, so each solve starts from the last basis (about a millisecond at 8 GPUs and 16 experts).
 * The busiest GPU's token count is continuous here and integer in the MILP: the two differ by less than one token's
 * compute. Not thread-safe; {@link #close} frees the solver.
 */
final class BestRouting implements AutoCloseable {
    private final PlacementMilp.Built lp;

    BestRouting(LayerProblem p) {
        if (p.mode() != Mode.REPLICATE) {
            throw new IllegalArgumentException("best routing: replicate mode only (fssdp copies carry no home)");
        }
        Loader.loadNativeLibraries();
        lp = new PlacementMilp.Built(p.withMasters(Masters.HOME), "GLOP");
    }

    /** The layer time in seconds of {@code placement} (every home held) under its best continuous routing. */
    double seconds(LayerPlacement placement) {
        LayerProblem p = lp.p;
        for (int e = 0; e < p.experts(); e++) {
            for (int g = 0; g < p.ep(); g++) {
                double held = placement.holds(g, e) ? 1 : 0;
                lp.x[e][g].setBounds(held, held);
            }
        }
        MPSolver.ResultStatus status = lp.solver.solve();
        if (status != MPSolver.ResultStatus.OPTIMAL) {
            // GLOP's warm start now and then ends ABNORMAL (seen on the Mixtral counts); from scratch it solves.
            lp.solver.reset();
            status = lp.solver.solve();
        }
        if (status != MPSolver.ResultStatus.OPTIMAL) {
            throw new IllegalStateException("the routing LP of a fixed placement ended " + status
                    + " (has every expert a copy?): " + placement);
        }
        return lp.solver.objective().value() / PlacementMilp.US;
    }

    @Override
    public void close() {
        lp.solver.delete();
    }
}
