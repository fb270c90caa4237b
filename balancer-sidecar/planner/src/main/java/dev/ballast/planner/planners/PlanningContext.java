package dev.ballast.planner.planners;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.StaticLayout;
import dev.ballast.planner.model.Topology;

/**
 * Everything fixed for a world generation that planners need: topology, parallel layout, model shape, mode,
 * the replica budget and the re-plan interval (the horizon over which a move must pay for itself).
 */
public final class PlanningContext {
    private final Topology topology;
    private final Parallelism parallelism;
    private final MoeShape shape;
    private final Mode mode;
    private final int redundantSlots;
    private final int replanInterval;
    private final GroupTopology[][] groups; // [stage][copy]

    public PlanningContext(Topology topology, Parallelism parallelism, MoeShape shape, Mode mode, int redundantSlots,
                           int replanInterval) {
        if (parallelism.gpus() != topology.gpus()) {
            throw new IllegalArgumentException("parallelism covers " + parallelism.gpus() + " GPUs, topology has " + topology.gpus());
        }
        if (parallelism.ep() > shape.experts()) {
            throw new IllegalArgumentException("EP group size " + parallelism.ep() + " exceeds experts " + shape.experts());
        }
        if (redundantSlots < 0) {
            throw new IllegalArgumentException("redundant slots must be >= 0");
        }
        if (replanInterval <= 0) {
            throw new IllegalArgumentException("re-plan interval must be > 0");
        }
        this.topology = topology;
        this.parallelism = parallelism;
        this.shape = shape;
        this.mode = mode;
        this.redundantSlots = redundantSlots;
        this.replanInterval = replanInterval;
        this.groups = new GroupTopology[parallelism.pp()][parallelism.dp()];
        for (int s = 0; s < parallelism.pp(); s++) {
            for (int c = 0; c < parallelism.dp(); c++) {
                groups[s][c] = GroupTopology.of(topology, parallelism, s, c);
            }
        }
    }

    public Topology topology() {
        return topology;
    }

    public Parallelism parallelism() {
        return parallelism;
    }

    public MoeShape shape() {
        return shape;
    }

    public Mode mode() {
        return mode;
    }

    public int redundantSlots() {
        return redundantSlots;
    }

    public int replanInterval() {
        return replanInterval;
    }

    /** Experts a GPU may hold per layer: the most home experts of any GPU plus the redundant slots (equal for all planners). */
    public int slotsPerGpu() {
        return StaticLayout.maxHomeCount(parallelism.ep(), shape.experts()) + redundantSlots;
    }

    public GroupTopology group(int stage, int copy) {
        return groups[stage][copy];
    }

    /** The EP group that runs (layer, copy). */
    public GroupTopology groupOfLayer(int layer, int copy) {
        return groups[parallelism.stageOf(layer, shape.layers())][copy];
    }

    public CostModel newCostModel() {
        return new CostModel(shape, mode, replanInterval);
    }
}
