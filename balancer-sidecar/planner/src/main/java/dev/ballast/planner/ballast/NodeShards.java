package dev.ballast.planner.ballast;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.MemoryBudget;
import dev.ballast.planner.model.StaticLayout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * FSSDP only: chooses how each expert's state is sharded (Hecate's heterogeneous sharding, in the form the plan
 * carries: {@link LayerPlacement#withNodeShards}). An expert whose copies all sit on its home node gathers them over
 * NVLink alone when its state is sharded over that node's GPUs instead of the whole group: no network bytes, at the
 * price of more NVLink bytes and of uneven state per GPU when nodes shard different numbers of experts. Whether that
 * pays is the cost model's call, so up to four layouts are scored: the placement as given (even shards), every such
 * expert node-sharded, every expert node-sharded (copies elsewhere then gather the whole expert from one node), and the
 * plan in use's layout kept (no state moves). The scorer charges a layout change as the one-off
 * move of the state on adoption. A layout must keep every GPU's expert memory within what the slot budget allows the
 * even layout ({@link MemoryBudget}): experts are un-sharded, highest first, on a node over it.
 */
public final class NodeShards {
    private NodeShards() {
    }

    /** {@code p} without node shards (every expert over the whole group). */
    public static LayerPlacement even(LayerPlacement p) {
        return p.hasNodeShards() ? p.withNodeShards(new boolean[p.experts()]) : p;
    }

    /** {@code p} (even shards) with the fastest of the layouts above; {@code current}: the plan in use's (null: none). */
    public static LayerPlacement apply(LayerScorer scorer, LayerPlacement p, LayerPlacement current) {
        if (!scorer.nodeShards()) {
            return p;
        }
        LayerPlacement best = even(p);
        double bestSec = scorer.secondsAsIs(best, current);
        boolean[] all = new boolean[p.experts()];
        Arrays.fill(all, true);
        List<LayerPlacement> layouts = new ArrayList<>(List.of(homeNodeOnly(scorer, p),
                p.withNodeShards(withinMemory(scorer, p, all))));
        if (current != null && current.hasNodeShards()) {
            layouts.add(p.withNodeShards(withinMemory(scorer, p, kept(current))));
        }
        for (LayerPlacement q : layouts) {
            if (q.equals(best)) {
                continue;
            }
            double sec = scorer.secondsAsIs(q, current);
            if (sec < bestSec) {
                best = q;
                bestSec = sec;
            }
        }
        return best;
    }

    /** {@code p} with every expert whose copies all sit on its home node node-sharded, within memory. */
    public static LayerPlacement homeNodeOnly(LayerScorer scorer, LayerPlacement p) {
        GroupTopology gt = scorer.group();
        boolean[] local = new boolean[p.experts()];
        for (int e = 0; e < p.experts(); e++) {
            int home = gt.nodeIndex(StaticLayout.home(e, gt.ep(), p.experts()));
            local[e] = true;
            for (int k = p.copyStart(e); k < p.copyStart(e) + p.copies(e); k++) {
                local[e] &= gt.nodeIndex(p.copyGpu(k)) == home;
            }
        }
        return p.withNodeShards(withinMemory(scorer, p, local));
    }

    private static boolean[] kept(LayerPlacement current) {
        boolean[] flags = new boolean[current.experts()];
        for (int e = 0; e < flags.length; e++) {
            flags[e] = current.nodeSharded(e);
        }
        return flags;
    }

    /**
     * {@code flags} less the experts, highest first, that put a GPU of their node above the even layout's budgeted
     * memory ({@code E / EP} experts of state and every slot a working copy). A GPU of node n holds
     * {@code (E − K) / EP + k_n / |n|} experts of state for K node-sharded experts, k_n of them homed on n; un-sharding
     * one of n's lowers that on n ({@code |n| ≤ EP}), and a node with {@code k_n = 0} is below the even layout's
     * state, so the loop ends.
     */
    static boolean[] withinMemory(LayerScorer scorer, LayerPlacement p, boolean[] flags) {
        GroupTopology gt = scorer.group();
        int ep = gt.ep();
        int experts = p.experts();
        double budget = MemoryBudget.layerBytes(scorer.context().shape(), (double) experts / ep,
                scorer.context().slotsPerGpu());
        boolean[] f = flags.clone();
        int[] perNode = CostModel.nodeShardsPerNode(gt, p.withNodeShards(f));
        for (int g = 0; g < ep; g++) {
            int node = gt.nodeIndex(g);
            for (int e = experts - 1; e >= 0 && perNode[node] > 0; e--) {
                if (MemoryBudget.layerBytes(scorer.context().shape(), CostModel.ownedExperts(gt, experts, perNode, g),
                        p.physicalSlots(g)) <= budget) {
                    break;
                }
                if (f[e] && gt.nodeIndex(StaticLayout.home(e, ep, experts)) == node) {
                    f[e] = false;
                    perNode[node]--;
                }
            }
        }
        return f;
    }
}
