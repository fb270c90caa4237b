package dev.ballast.trainer.loop;

import dev.ballast.client.PlanAdopter;
import dev.ballast.client.SidecarApi;
import dev.ballast.client.StepTiming;
import dev.ballast.collectives.RankComm;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.model.Plan;

/**
 * One rank's side of the loop with its pod's sidecar (docs/protocol.md): before a step the adoption rule picks the
 * plan (one MIN all-reduce over all ranks, so every rank of every pod adopts the same plan at the same step); after
 * it the rank reports its own tokens' per-layer, per-expert counts with the plan it used and what it measured of the
 * step (the balancer's status.balancer.measured compares the slowest rank's times under the static layout and its
 * plans).
 */
public final class SidecarLoop {

    private final SidecarApi sidecar;
    private final PlanAdopter adopter;
    private final int rank;

    public SidecarLoop(SidecarApi sidecar, RankComm comm, long generation) {
        this.sidecar = sidecar;
        this.adopter = new PlanAdopter(sidecar, new CommAllReduce(comm), generation);
        this.rank = comm.rank();
    }

    /** The plan for step (null: the static layout); every rank calls it with the same step. */
    public Plan beforeStep(long step) {
        return adopter.atStepBoundary(step);
    }

    /** The version in use: (generation, 0) for the static layout. */
    public PlanVersion adopted() {
        return adopter.currentVersion();
    }

    /**
     * counts[l][e]: this rank's tokens routed to expert e of layer l in step; timing: the step's wall time and this
     * rank's compute time outside collectives.
     */
    public void afterStep(long step, long[][] counts, StepTiming timing) {
        sidecar.report(adopter.generation(), step, rank, 0, counts, adopter.currentPlan() == null ? null : adopted(),
                timing);
    }
}
