package dev.ballast.planner.model;

import dev.ballast.contracts.plan.PlanVersion;
import java.util.Arrays;
import java.util.function.Predicate;

/**
 * A whole-model placement plan: for every MoE layer and every data-parallel copy of the layer's stage,
 * the experts materialized on each GPU of that EP group. Token quotas are not part of the plan (see QuotaRule).
 */
public final class Plan {
    private final PlanVersion version;
    private final long earliestStep;
    private final Mode mode;
    private final String planner;
    private final int experts;
    private final Parallelism parallelism;
    private final LayerPlacement[][] placements; // [layer][copy]

    public Plan(PlanVersion version, long earliestStep, Mode mode, String planner, int experts, Parallelism parallelism,
                LayerPlacement[][] placements) {
        if (earliestStep < 0) {
            throw new IllegalArgumentException("earliestStep must be >= 0");
        }
        if (placements.length == 0) {
            throw new IllegalArgumentException("a plan needs at least one layer");
        }
        for (int l = 0; l < placements.length; l++) {
            if (placements[l].length != parallelism.dp()) {
                throw new IllegalArgumentException("layer " + l + ": " + placements[l].length + " groups, expected dp=" + parallelism.dp());
            }
            for (LayerPlacement p : placements[l]) {
                if (p.gpus() != parallelism.ep() || p.experts() != experts) {
                    throw new IllegalArgumentException("layer " + l + ": placement shape does not match ep/experts");
                }
                if (p.hasNodeShards() && mode != Mode.FSSDP) {
                    throw new IllegalArgumentException("layer " + l + ": node-sharded experts in a " + mode.wireName()
                            + " plan (only fssdp shards expert state)");
                }
                if (p.hasRoutes() && mode != Mode.REPLICATE) {
                    throw new IllegalArgumentException("layer " + l + ": a planned split in a " + mode.wireName()
                            + " plan (only replicate plans carry routes)");
                }
            }
        }
        this.version = version;
        this.earliestStep = earliestStep;
        this.mode = mode;
        this.planner = planner;
        this.experts = experts;
        this.parallelism = parallelism;
        this.placements = new LayerPlacement[placements.length][];
        for (int l = 0; l < placements.length; l++) {
            this.placements[l] = placements[l].clone();
        }
    }

    /** The static-layout plan: the floor and every world generation's starting point. */
    public static Plan staticPlan(PlanVersion version, long earliestStep, Mode mode, int layers, int experts, Parallelism par) {
        LayerPlacement s = LayerPlacement.staticLayout(par.ep(), experts);
        LayerPlacement[][] p = new LayerPlacement[layers][par.dp()];
        for (LayerPlacement[] row : p) {
            Arrays.fill(row, s);
        }
        return new Plan(version, earliestStep, mode, "static", experts, par, p);
    }

    public PlanVersion version() {
        return version;
    }

    public long earliestStep() {
        return earliestStep;
    }

    public Mode mode() {
        return mode;
    }

    public String planner() {
        return planner;
    }

    public int experts() {
        return experts;
    }

    public int layers() {
        return placements.length;
    }

    public Parallelism parallelism() {
        return parallelism;
    }

    public LayerPlacement placement(int layer, int copy) {
        return placements[layer][copy];
    }

    /** Whether some placement shards an expert over one node (the codecs' v2 / BPL2 layout or later). */
    public boolean hasNodeShards() {
        return anyPlacement(LayerPlacement::hasNodeShards);
    }

    /** Whether some placement shards an expert over a node other than its home's (the codecs' v3 / BPL3 layout). */
    public boolean hasShardsAwayFromHome() {
        return anyPlacement(LayerPlacement::hasShardsAwayFromHome);
    }

    /** Whether some placement carries a planned split (the codecs' v4 / BPL4 layout). */
    public boolean hasRoutes() {
        return anyPlacement(LayerPlacement::hasRoutes);
    }

    private boolean anyPlacement(Predicate<LayerPlacement> test) {
        for (LayerPlacement[] layer : placements) {
            for (LayerPlacement p : layer) {
                if (test.test(p)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Same placements under a new version and adoption step. */
    public Plan withVersion(PlanVersion v, long step) {
        return new Plan(v, step, mode, planner, experts, parallelism, placements);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Plan p && p.version.equals(version) && p.earliestStep == earliestStep && p.mode == mode
                && p.planner.equals(planner) && p.experts == experts && p.parallelism.equals(parallelism)
                && Arrays.deepEquals(p.placements, placements);
    }

    @Override
    public int hashCode() {
        return Arrays.deepHashCode(placements) * 31 + version.hashCode();
    }
}
