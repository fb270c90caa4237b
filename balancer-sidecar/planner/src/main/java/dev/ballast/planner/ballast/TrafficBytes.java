package dev.ballast.planner.ballast;

import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;

/**
 * What the placement steps weigh a replica by: the bytes one token assignment moves over its four all-to-alls
 * (dispatch and combine, forward and backward), and the bytes a replica moves every step (refresh and gradient return
 * in replicate mode, nothing extra in fssdp).
 */
public record TrafficBytes(double perToken, double perReplica) {
    public static TrafficBytes of(PlanningContext c) {
        double replica = c.mode() == Mode.REPLICATE ? c.shape().weightBytesPerExpert() + c.shape().gradBytesPerExpert() : 0;
        return new TrafficBytes(4.0 * c.shape().tokenBytes(), replica);
    }
}
