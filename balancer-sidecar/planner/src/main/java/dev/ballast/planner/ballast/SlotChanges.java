package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/** The slot changes between two placements of one layer, and placements with some of them applied. */
public final class SlotChanges {
    private SlotChanges() {
    }

    /**
     * The slot changes that turn {@code current} into {@code target}, most valuable first: on each GPU the experts
     * only {@code current} holds are paired, in list order, with those only {@code target} holds. A change's value is
     * the node-local tokens of the expert it brings minus those of the expert it evicts (ties: lower GPU, then lower
     * added expert).
     */
    public static List<SlotChange> between(GroupTopology gt, LayerDemand demand, LayerPlacement current,
                                           LayerPlacement target) {
        List<SlotChange> ops = new ArrayList<>();
        for (int g = 0; g < gt.ep(); g++) {
            int[] removed = new int[current.expertCount(g)];
            int[] added = new int[target.expertCount(g)];
            int nr = 0;
            int na = 0;
            for (int i = 0; i < current.expertCount(g); i++) {
                int e = current.expertAt(g, i);
                if (!target.holds(g, e)) {
                    removed[nr++] = e;
                }
            }
            for (int i = 0; i < target.expertCount(g); i++) {
                int e = target.expertAt(g, i);
                if (!current.holds(g, e)) {
                    added[na++] = e;
                }
            }
            for (int i = 0; i < Math.max(nr, na); i++) {
                ops.add(new SlotChange(g, i < nr ? removed[i] : -1, i < na ? added[i] : -1));
            }
        }
        ops.sort(Comparator.comparingLong((SlotChange op) -> -localValue(gt, demand, op))
                .thenComparingInt(SlotChange::gpu).thenComparingInt(SlotChange::added));
        return ops;
    }

    /** Node-local tokens of the expert a change brings minus those of the expert it evicts. */
    private static long localValue(GroupTopology gt, LayerDemand demand, SlotChange op) {
        int node = gt.nodeIndex(op.gpu());
        return (op.added() >= 0 ? demand.nodeTokens(node, op.added()) : 0)
                - (op.removed() >= 0 ? demand.nodeTokens(node, op.removed()) : 0);
    }

    /** {@code current} with the first {@code k} of {@code ops} applied. */
    public static LayerPlacement applyFirst(LayerPlacement current, List<SlotChange> ops, int k) {
        int[][] lists = new int[current.gpus()][];
        for (int g = 0; g < lists.length; g++) {
            lists[g] = current.expertsOn(g);
        }
        for (int i = 0; i < k; i++) {
            SlotChange op = ops.get(i);
            lists[op.gpu()] = replace(lists[op.gpu()], op.removed(), op.added());
        }
        return LayerPlacement.ofAscending(current.experts(), lists);
    }

    /**
     * {@code list} without {@code removed} (if >= 0) and with {@code added} (if >= 0 and not in it already): ascending
     * when {@code list} is, as a placement's lists are, so the result can go to {@link LayerPlacement#ofAscending}.
     */
    public static int[] replace(int[] list, int removed, int added) {
        int[] next = new int[list.length + (added >= 0 ? 1 : 0)];
        int k = 0;
        boolean in = added < 0;
        for (int e : list) {
            if (!in && e >= added) {
                in = true;
                if (e != added) {
                    next[k++] = added;
                }
            }
            if (e != removed) {
                next[k++] = e;
            }
        }
        if (!in) {
            next[k++] = added;
        }
        return k == next.length ? next : Arrays.copyOf(next, k);
    }
}
