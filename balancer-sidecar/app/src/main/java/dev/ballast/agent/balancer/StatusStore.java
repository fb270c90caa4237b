package dev.ballast.agent.balancer;

import dev.ballast.contracts.status.BalancerStatus;

/** Where status.balancer lives: the TrainingJob (in a cluster) or a file (local runs, tests). */
public interface StatusStore {
    /** The persisted plan-sequence high-water mark, 0 when none was ever written. */
    long loadPlanSequence();

    /** Writes the status (server-side apply of status.balancer only); throws when it could not be persisted. */
    void write(BalancerStatus status);
}
