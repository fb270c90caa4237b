package dev.ballast.planner.planners;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Plan;

/**
 * The baseline users run today: DeepSeek EPLB re-planned from scratch on predicted per-expert loads, with the same
 * slots per GPU as every other planner, and tokens split equally among physical replicas as EPLB's runtime does (two
 * replicas EPLB puts on one GPU stay two replicas: one copy with {@link LayerPlacement#replicas} 2). Masters are held
 * as a trainer using EPLB would hold them: EPLB's packs go to the GPUs that keep the most masters in place, and the
 * masters of the rest move to a copy ({@link PackRelabel}).
 */
public final class EplbPlanner implements Planner {
    public enum Policy { AUTO, HIERARCHICAL, GLOBAL }

    private final Policy policy;
    private final int groups;

    /**
     * @param groups expert groups for the hierarchical policy; 0 means one group per node of the EP group.
     *               AUTO picks hierarchical when groups % nodes == 0 (EPLB's own rule), else global.
     */
    public EplbPlanner(Policy policy, int groups) {
        this.policy = policy;
        this.groups = groups;
    }

    @Override
    public String name() {
        return switch (policy) {
            case AUTO -> "eplb";
            case HIERARCHICAL -> "eplb-hierarchical";
            case GLOBAL -> "eplb-global";
        };
    }

    @Override
    public Routing routing() {
        return Routing.EQUAL_SPLIT;
    }

    @Override
    public Plan plan(PlanRequest r) {
        PlanningContext c = r.context();
        int layers = c.shape().layers();
        int experts = c.shape().experts();
        int ep = c.parallelism().ep();
        int perGpu = c.slotsPerGpu();
        LayerPlacement[][] out = new LayerPlacement[layers][c.parallelism().dp()];
        for (int l = 0; l < layers; l++) {
            for (int copy = 0; copy < c.parallelism().dp(); copy++) {
                GroupTopology gt = c.groupOfLayer(l, copy);
                long[] totals = r.predicted().expertTotals(l, copy);
                double[] w = new double[experts];
                for (int e = 0; e < experts; e++) {
                    w[e] = totals[e];
                }
                boolean hierarchical = hierarchical(gt, experts);
                int[] phy2log = hierarchical ? Eplb.hierarchical(w, ep * perGpu, groupCount(gt), gt.nodeCount(), ep)
                        : Eplb.global(w, ep * perGpu, ep);
                int[][] packs = new int[ep][perGpu];
                for (int p = 0; p < phy2log.length; p++) {
                    packs[p / perGpu][p % perGpu] = phy2log[p];
                }
                out[l][copy] = PackRelabel.relabel(gt, experts, packs, hierarchical ? ep / gt.nodeCount() : ep);
            }
        }
        return new Plan(r.version(), r.earliestStep(), c.mode(), name(), experts, c.parallelism(), out);
    }

    private int groupCount(GroupTopology gt) {
        return groups == 0 ? gt.nodeCount() : groups;
    }

    /** Whether this layer is packed with the hierarchical policy (else the global one). */
    private boolean hierarchical(GroupTopology gt, int experts) {
        int ep = gt.ep();
        int nodes = gt.nodeCount();
        boolean contiguous = ep % nodes == 0;
        for (int g = 0; g < ep && contiguous; g++) {
            contiguous = gt.nodeIndex(g) == g / (ep / nodes);
        }
        int g = groupCount(gt);
        boolean wanted = switch (policy) {
            case GLOBAL -> false;
            case HIERARCHICAL -> true;
            case AUTO -> g % nodes == 0;
        };
        if (wanted && contiguous && experts % g == 0 && g % nodes == 0) {
            return true;
        }
        if (wanted && policy == Policy.HIERARCHICAL) {
            throw new IllegalArgumentException("EPLB hierarchical policy needs experts % groups == 0, groups % nodes == 0 "
                    + "and equal contiguous nodes (experts=" + experts + ", groups=" + g + ", nodes=" + nodes + ")");
        }
        return false;
    }
}
