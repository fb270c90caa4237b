package dev.ballast.tools.exact;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;

/**
 * One layer of one EP group as the cost model scores it: the counts each source GPU sends to each expert
 * (row-major [source][expert]), at most {@code slotsPerGpu} distinct experts per GPU, every expert with a copy.
 *
 * @param replanInterval steps a moved master's migration is amortized over (the cost model's)
 */
public record LayerProblem(GroupTopology group, long[] counts, MoeShape shape, Mode mode, int slotsPerGpu,
                           int replanInterval, Masters masters) {
    public LayerProblem {
        int ep = group.ep();
        if (counts.length != ep * shape.experts()) {
            throw new IllegalArgumentException("counts: " + counts.length + " entries for " + ep + " sources x "
                    + shape.experts() + " experts");
        }
        if ((long) slotsPerGpu * ep < shape.experts()) {
            throw new IllegalArgumentException(slotsPerGpu + " slots on each of " + ep + " GPUs cannot hold "
                    + shape.experts() + " experts");
        }
        for (long c : counts) {
            if (c < 0) {
                throw new IllegalArgumentException("counts must be >= 0, got " + c);
            }
        }
        if (replanInterval <= 0) {
            throw new IllegalArgumentException("re-plan interval must be > 0, got " + replanInterval);
        }
    }

    /** The same problem with masters placed as {@code m} says. */
    public LayerProblem withMasters(Masters m) {
        return new LayerProblem(group, counts, shape, mode, slotsPerGpu, replanInterval, m);
    }

    public int ep() {
        return group.ep();
    }

    public int experts() {
        return shape.experts();
    }

    public long count(int source, int expert) {
        return counts[source * shape.experts() + expert];
    }
}
