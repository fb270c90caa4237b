package dev.ballast.agent.balancer;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.contracts.status.BalancerStatus;
import dev.ballast.contracts.status.BalancerStatus.FirstPlan;

/**
 * The first plan of the current world generation: where it came from (the load history, before the world's first
 * step was seen, or the world's own steps) and how many steps the world ran before every rank adopted a plan of it:
 * the adoption step minus the world's first step (target 0). Not thread-safe.
 */
final class FirstPlanTracker {
    private long generation = -1;
    private FirstPlan first;
    private long firstStep = -1;
    private long adoptedAt = -1;

    /** A new world generation: nothing is known of it yet. */
    void newWorld(long generation) {
        this.generation = generation;
        first = null;
        firstStep = -1;
        adoptedAt = -1;
    }

    /** A plan of this generation was published; only the first counts. */
    void published(boolean fromHistory) {
        if (first == null) {
            first = new FirstPlan(generation, fromHistory ? BalancerStatus.FROM_HISTORY : BalancerStatus.FROM_STEPS, -1);
            settle();
        }
    }

    /** A step of this generation was reported. */
    void stepSeen(long step) {
        if (firstStep < 0 || step < firstStep) {
            firstStep = step;
            settle();
        }
    }

    /** Every rank now runs {@code oldestInUse} or newer, the last of them since {@code atStep}. */
    void adopted(PlanVersion oldestInUse, long atStep) {
        if (adoptedAt < 0 && oldestInUse.worldGeneration() == generation && oldestInUse.sequence() > 0) {
            adoptedAt = atStep;
            settle();
        }
    }

    /** Null until the generation's first plan is published. */
    FirstPlan current() {
        return first;
    }

    private void settle() {
        if (first != null && first.steps() < 0 && adoptedAt >= 0 && firstStep >= 0) {
            first = first.adoptedAfter(Math.max(0, adoptedAt - firstStep));
        }
    }
}
