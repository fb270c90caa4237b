package dev.ballast.client;

import dev.ballast.contracts.plan.PlanHeads;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.contracts.plan.PlanVersions;
import dev.ballast.planner.model.Plan;

/**
 * One rank's side of the adoption rule for one world generation. Call {@link #atStepBoundary} at every
 * optimizer-step boundary (never between micro-batches), on every rank, with the same step. The adopter keeps the
 * adopted plan itself, so a sidecar that restarts or drops plans never takes the plan in use away.
 */
public final class PlanAdopter {
    private final SidecarApi sidecar;
    private final AllReduce allReduce;
    private final long generation;
    private PlanVersion currentVersion;
    private Plan current;
    private long adoptedAtStep = -1;

    public PlanAdopter(SidecarApi sidecar, AllReduce allReduce, long generation) {
        this.sidecar = sidecar;
        this.allReduce = allReduce;
        this.generation = generation;
        this.currentVersion = PlanVersions.staticOf(generation);
    }

    /**
     * Runs the rule for {@code step}; returns the plan to use for this step, or null while the static layout is in use.
     *
     * @throws IllegalStateException if the ranks agreed on a plan this rank's sidecar cannot produce (a broken sidecar
     *                               invariant: every rank must then stop rather than split across plans)
     */
    public Plan atStepBoundary(long step) {
        PlanHeads heads = sidecar.heads(generation, step);
        long[] reduced = allReduce.min(AdoptionRule.contribution(heads));
        PlanVersion adopt = AdoptionRule.decide(currentVersion, reduced);
        if (adopt != null) {
            Plan p = sidecar.plan(adopt).orElseThrow(() -> new IllegalStateException(
                    "ranks agreed on plan " + adopt + " at step " + step + " but this rank's sidecar does not hold it"));
            if (!p.version().equals(adopt)) {
                throw new IllegalStateException("sidecar returned plan " + p.version() + " when asked for " + adopt);
            }
            current = p;
            currentVersion = adopt;
            adoptedAtStep = step;
        }
        return current;
    }

    /** The version in use: (generation, 0) for the static layout. */
    public PlanVersion currentVersion() {
        return currentVersion;
    }

    /** The plan in use, or null for the static layout. */
    public Plan currentPlan() {
        return current;
    }

    public long generation() {
        return generation;
    }

    /** Step at which the current plan was adopted, -1 while on the static layout. */
    public long adoptedAtStep() {
        return adoptedAtStep;
    }
}
