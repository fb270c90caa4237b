package dev.ballast.agent.balancer;

import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.Parallelism;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Collects one world generation's per-GPU reports into whole-step {@link ModelLoads}. A step is complete when every
 * GPU has reported it; steps that fall {@link #MAX_OPEN_STEPS} behind the newest reported step are released
 * incomplete (a missing GPU then counts as zero load). A second report of the same (rank, step) is ignored.
 */
final class StepAssembler {
    static final int MAX_OPEN_STEPS = 4;

    private record Open(ModelLoads loads, BitSet ranks) {
    }

    private final Parallelism par;
    private final int layers;
    private final int experts;
    private final TreeMap<Long, Open> open = new TreeMap<>();
    private long released = -1;
    private long duplicates;
    private long late;

    StepAssembler(Parallelism par, int layers, int experts) {
        this.par = par;
        this.layers = layers;
        this.experts = experts;
    }

    /** Adds GPU {@code rank}'s counts for layers [firstLayer, firstLayer + n) and returns the steps now complete, in order. */
    List<Map.Entry<Long, ModelLoads>> add(long step, int rank, int firstLayer, int n, long[] counts) {
        List<Map.Entry<Long, ModelLoads>> done = new ArrayList<>();
        if (step <= released) {
            late++;
            return done;
        }
        Open o = open.computeIfAbsent(step, s -> new Open(new ModelLoads(layers, par.dp(), par.ep(), experts), new BitSet()));
        if (o.ranks.get(rank)) {
            duplicates++;
            return done;
        }
        o.ranks.set(rank);
        int copy = (rank / par.ep()) % par.dp();
        int local = rank % par.ep();
        for (int i = 0; i < n; i++) {
            System.arraycopy(counts, i * experts, o.loads.counts(firstLayer + i, copy), local * experts, experts);
        }
        // Release complete steps in order, and anything too far behind the newest step.
        long newest = open.lastKey();
        while (!open.isEmpty()) {
            Map.Entry<Long, Open> first = open.firstEntry();
            boolean complete = first.getValue().ranks.cardinality() == par.gpus();
            if (!complete && first.getKey() > newest - MAX_OPEN_STEPS) {
                break;
            }
            open.pollFirstEntry();
            released = first.getKey();
            done.add(Map.entry(first.getKey(), first.getValue().loads));
        }
        return done;
    }

    long duplicates() {
        return duplicates;
    }

    long late() {
        return late;
    }
}
