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
 * carries: {@link LayerPlacement#withShardRanks}). An expert whose copies all sit on one node gathers them over NVLink
 * alone when its state is sharded over that node's GPUs instead of the whole group: no network bytes, at the price of
 * more NVLink bytes, of uneven state per GPU when nodes shard different numbers of experts, and, when the node is not
 * the one its state is on now, of moving that state once. Whether that pays is the cost model's call, so up to four
 * layouts are scored: the placement as given (even shards), every such expert sharded over its copies' node, every
 * expert node-sharded (over the node holding most of its copies: copies elsewhere then gather the whole expert from one
 * node), and the plan in use's layout kept (no state moves). The scorer charges a layout change as the one-off move of
 * the state on adoption, and each expert whose state moves must also win the {@link IncrementalWalk#price} of a new
 * copy, so that re-plans on drifting loads do not move state after predicted gains that noise makes (without it the
 * reference trainer's routing at 2x8, scored causally, lost 0.011 of ideal to such moves). A layout must keep every
 * GPU's expert memory within what the slot budget allows the even layout ({@link MemoryBudget}): experts are
 * un-sharded, highest first, on a node over it.
 * <p>
 * A node is named by a rank on it: the expert's static home where the home is on it, else the node's lowest rank, so
 * that equal layouts are equal placements.
 */
public final class NodeShards {
    private NodeShards() {
    }

    /** {@code p} without node shards (every expert over the whole group). */
    public static LayerPlacement even(LayerPlacement p) {
        return p.hasNodeShards() ? p.withShardRanks(unsharded(p.experts())) : p;
    }

    /** {@code p} (even shards) with the fastest of the layouts above; {@code current}: the plan in use's (null: none). */
    public static LayerPlacement apply(LayerScorer scorer, LayerPlacement p, LayerPlacement current) {
        if (!scorer.nodeShards()) {
            return p;
        }
        LayerPlacement best = even(p);
        double evenSec = scorer.secondsAsIs(best, current);
        double price = current == null ? 0 : IncrementalWalk.price(Math.abs(evenSec), scorer.group().ep());
        double bestSec = evenSec + price * moves(best, current);
        List<LayerPlacement> layouts = new ArrayList<>(List.of(singleNode(scorer, p),
                p.withShardRanks(withinMemory(scorer, p, mostCopies(scorer.group(), p)))));
        if (current != null && current.hasNodeShards()) {
            layouts.add(p.withShardRanks(withinMemory(scorer, p, kept(current))));
        }
        for (LayerPlacement q : layouts) {
            if (q.equals(best)) {
                continue;
            }
            double sec = scorer.secondsAsIs(q, current) + price * moves(q, current);
            if (sec < bestSec) {
                best = q;
                bestSec = sec;
            }
        }
        return best;
    }

    /** Experts whose state {@code q} shards otherwise than {@code current} does (0 without a plan in use). */
    private static int moves(LayerPlacement q, LayerPlacement current) {
        if (current == null) {
            return 0;
        }
        int n = 0;
        for (int e = 0; e < q.experts(); e++) {
            n += q.shardRank(e) != current.shardRank(e) ? 1 : 0;
        }
        return n;
    }

    /** {@code p} with every expert whose copies all sit on one node sharded over that node, within memory. */
    public static LayerPlacement singleNode(LayerScorer scorer, LayerPlacement p) {
        return p.withShardRanks(withinMemory(scorer, p, onOneNode(scorer.group(), p, false)));
    }

    /**
     * {@code p} with every expert whose copies all sit on its home node sharded over that node, within memory: the
     * layout the search weighs each candidate with. It needs no state moved away from home, which a score during the
     * search does not charge (the final choice does); weighing candidates with {@link #singleNode} instead made the
     * search prefer placements whose layout the final choice then refused for the move (bench: OLMoE 2x8 at 2048
     * tokens, oracle, 1.173 → 1.157; the reference trainer's routing there, causal, 1.039 → 0.976).
     */
    public static LayerPlacement homeNodeOnly(LayerScorer scorer, LayerPlacement p) {
        return p.withShardRanks(withinMemory(scorer, p, onOneNode(scorer.group(), p, true)));
    }

    /**
     * Per expert: the rank naming the node all its copies sit on; -1 where they span nodes or, with {@code homeOnly},
     * where that node is not its home's.
     */
    private static int[] onOneNode(GroupTopology gt, LayerPlacement p, boolean homeOnly) {
        int[] ranks = unsharded(p.experts());
        for (int e = 0; e < p.experts(); e++) {
            if (p.copies(e) == 0) {
                continue; // a walk's partial change may leave an expert uncovered; its score is infinite anyway
            }
            int node = gt.nodeIndex(p.copyGpu(p.copyStart(e)));
            boolean one = !homeOnly || node == gt.nodeIndex(StaticLayout.home(e, gt.ep(), p.experts()));
            for (int k = p.copyStart(e) + 1; k < p.copyStart(e) + p.copies(e); k++) {
                one &= gt.nodeIndex(p.copyGpu(k)) == node;
            }
            ranks[e] = one ? rankOn(gt, node, e, p.experts()) : -1;
        }
        return ranks;
    }

    /** Every expert over the node holding most of its copies (its home's on a tie, else the lowest such node). */
    private static int[] mostCopies(GroupTopology gt, LayerPlacement p) {
        int[] ranks = new int[p.experts()];
        int[] onNode = new int[gt.nodeCount()];
        for (int e = 0; e < p.experts(); e++) {
            Arrays.fill(onNode, 0);
            for (int k = p.copyStart(e); k < p.copyStart(e) + p.copies(e); k++) {
                onNode[gt.nodeIndex(p.copyGpu(k))]++;
            }
            int best = gt.nodeIndex(StaticLayout.home(e, gt.ep(), p.experts()));
            for (int n = 0; n < onNode.length; n++) {
                if (onNode[n] > onNode[best]) {
                    best = n;
                }
            }
            ranks[e] = rankOn(gt, best, e, p.experts());
        }
        return ranks;
    }

    /** The rank that names node {@code node} for expert e: its static home where the home is on it, else the lowest. */
    private static int rankOn(GroupTopology gt, int node, int e, int experts) {
        int home = StaticLayout.home(e, gt.ep(), experts);
        return gt.nodeIndex(home) == node ? home : gt.nodeMember(gt.nodeMemberStart(node));
    }

    private static int[] unsharded(int experts) {
        int[] ranks = new int[experts];
        Arrays.fill(ranks, -1);
        return ranks;
    }

    private static int[] kept(LayerPlacement current) {
        int[] ranks = new int[current.experts()];
        for (int e = 0; e < ranks.length; e++) {
            ranks[e] = current.shardRank(e);
        }
        return ranks;
    }

    /**
     * {@code ranks} less the experts, highest first, that put a GPU of their shard node above the even layout's
     * budgeted memory ({@code E / EP} experts of state and every slot a working copy). A GPU of node n holds
     * {@code (E − K) / EP + k_n / |n|} experts of state for K node-sharded experts, k_n of them over n; un-sharding
     * one of n's lowers that on n ({@code |n| ≤ EP}), and a node with {@code k_n = 0} is below the even layout's
     * state, so the loop ends.
     */
    static int[] withinMemory(LayerScorer scorer, LayerPlacement p, int[] ranks) {
        GroupTopology gt = scorer.group();
        int ep = gt.ep();
        int experts = p.experts();
        double budget = MemoryBudget.layerBytes(scorer.context().shape(), (double) experts / ep,
                scorer.context().slotsPerGpu());
        int[] r = ranks.clone();
        int[] perNode = CostModel.nodeShardsPerNode(gt, p.withShardRanks(r));
        for (int g = 0; g < ep; g++) {
            int node = gt.nodeIndex(g);
            for (int e = experts - 1; e >= 0 && perNode[node] > 0; e--) {
                if (MemoryBudget.layerBytes(scorer.context().shape(), CostModel.ownedExperts(gt, experts, perNode, g),
                        p.physicalSlots(g)) <= budget) {
                    break;
                }
                if (r[e] >= 0 && gt.nodeIndex(r[e]) == node) {
                    r[e] = -1;
                    perNode[node]--;
                }
            }
        }
        return r;
    }
}
