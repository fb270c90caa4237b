package dev.ballast.planner.ballast;

import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;

/**
 * What the placement steps weigh a copy by: the bytes one token assignment moves over its four all-to-alls
 * (dispatch and combine, forward and backward), and the bytes a copy moves every step as the cost model charges it:
 * in replicate mode a replica's refresh and gradient return (free in kind on the home node, where they ride NVLink);
 * in fssdp mode every materialized copy, home or not, gathers the {@code EP − 1} shards it does not own and
 * reduce-scatters its gradient back, {@code (EP − 1) / EP × (weights + gradient)} wherever it sits.
 */
public record TrafficBytes(double perToken, double perReplica, boolean fssdp) {
    public static TrafficBytes of(PlanningContext c) {
        double copy = c.shape().weightBytesPerExpert() + c.shape().gradBytesPerExpert();
        if (c.mode() == Mode.FSSDP) {
            int ep = c.parallelism().ep();
            return new TrafficBytes(4.0 * c.shape().tokenBytes(), copy * (ep - 1) / ep, true);
        }
        return new TrafficBytes(4.0 * c.shape().tokenBytes(), copy, false);
    }

    /**
     * The bytes a copy on a GPU of the expert's home node ({@code homeNode}) or elsewhere is weighed by: replicate
     * counts a home-node replica as free (NVLink), fssdp charges every copy its gathers wherever it sits.
     */
    public double perReplica(boolean homeNode) {
        return homeNode && !fssdp ? 0 : perReplica;
    }
}
