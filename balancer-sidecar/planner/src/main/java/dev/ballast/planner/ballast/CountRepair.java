package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.StaticLayout;

import java.util.Arrays;

/**
 * An incremental re-plan's target that changes only how many copies each expert has: the plan in use with every
 * expert's copy count moved to the from-scratch winner's, every copy that stays kept where it is. Under drift the
 * from-scratch winner differs from the plan in use mostly by its counts (the newly hot experts need more copies, the
 * cooled ones fewer), but re-aligned to the plan in use it still rearranges hundreds of copies in an EP-256 group; this
 * target makes only the count changes, so a short prefix of it already relieves the busiest GPUs (docs/planner.md,
 * "Count repair").
 */
public final class CountRepair {
    private CountRepair() {
    }

    /**
     * {@code current} with each expert's copies brought to {@code target}'s number, at most {@code slots} non-home
     * copies per GPU, homes kept. Surplus copies go first, each time the one whose node has the fewest of the expert's
     * tokens per copy there (ties: the higher GPU). Then the missing copies, hottest expert first (ties: lower expert),
     * each on a GPU with a free slot that does not hold the expert: on the node with the most of the expert's tokens per
     * copy it would have there, then the GPU with the least estimated load (each expert's total split evenly over its
     * copies), then the lower GPU. A copy that finds no such GPU is left out.
     */
    public static LayerPlacement repair(LayerScorer scorer, LayerPlacement target, LayerPlacement current, int slots) {
        GroupTopology gt = scorer.group();
        LayerDemand d = scorer.demand();
        int ep = gt.ep();
        int experts = current.experts();
        int nodes = gt.nodeCount();
        boolean[] holds = new boolean[ep * experts];
        int[] copies = new int[experts];
        int[] onNode = new int[experts * nodes];
        int[] free = new int[ep];
        for (int g = 0; g < ep; g++) {
            for (int e : current.expertsOn(g)) {
                holds[g * experts + e] = true;
                copies[e]++;
                onNode[e * nodes + gt.nodeIndex(g)]++;
            }
            free[g] = Math.max(0, slots - current.nonHomeCopies(g));
        }
        for (int e = 0; e < experts; e++) {
            int home = StaticLayout.home(e, ep, experts);
            while (copies[e] > target.copies(e)) {
                int drop = -1;
                double fewest = Double.POSITIVE_INFINITY;
                for (int g = 0; g < ep; g++) {
                    if (g == home || !holds[g * experts + e]) {
                        continue;
                    }
                    int n = gt.nodeIndex(g);
                    double perCopy = (double) d.nodeTokens(n, e) / onNode[e * nodes + n];
                    if (perCopy <= fewest) {
                        fewest = perCopy;
                        drop = g;
                    }
                }
                if (drop < 0) {
                    break;
                }
                holds[drop * experts + e] = false;
                copies[e]--;
                onNode[e * nodes + gt.nodeIndex(drop)]--;
                free[drop]++;
            }
        }
        double[] load = new double[ep];
        for (int g = 0; g < ep; g++) {
            for (int e = 0; e < experts; e++) {
                if (holds[g * experts + e]) {
                    load[g] += (double) d.total(e) / copies[e];
                }
            }
        }
        for (int e : hottestFirst(d, experts)) {
            while (copies[e] < target.copies(e)) {
                int add = -1;
                double most = Double.NEGATIVE_INFINITY;
                for (int g = 0; g < ep; g++) {
                    if (free[g] == 0 || holds[g * experts + e]) {
                        continue;
                    }
                    int n = gt.nodeIndex(g);
                    double perCopy = (double) d.nodeTokens(n, e) / (onNode[e * nodes + n] + 1);
                    if (perCopy > most || perCopy == most && load[g] < load[add]) {
                        most = perCopy;
                        add = g;
                    }
                }
                if (add < 0) {
                    break;
                }
                // The expert's tokens now split over one more copy.
                double before = copies[e] == 0 ? 0 : (double) d.total(e) / copies[e];
                double after = (double) d.total(e) / (copies[e] + 1);
                for (int g = 0; g < ep; g++) {
                    if (holds[g * experts + e]) {
                        load[g] += after - before;
                    }
                }
                holds[add * experts + e] = true;
                load[add] += after;
                copies[e]++;
                onNode[e * nodes + gt.nodeIndex(add)]++;
                free[add]--;
            }
        }
        int[][] lists = new int[ep][];
        int[] buf = new int[experts];
        for (int g = 0; g < ep; g++) {
            int k = 0;
            for (int e = 0; e < experts; e++) {
                if (holds[g * experts + e]) {
                    buf[k++] = e;
                }
            }
            lists[g] = Arrays.copyOf(buf, k);
        }
        return LayerPlacement.ofAscending(experts, lists);
    }

    /** Experts by total tokens, most first; ties by expert. */
    private static int[] hottestFirst(LayerDemand d, int experts) {
        Integer[] order = new Integer[experts];
        for (int e = 0; e < experts; e++) {
            order[e] = e;
        }
        Arrays.sort(order, (a, b) -> d.total(a) != d.total(b) ? Long.compare(d.total(b), d.total(a)) : Integer.compare(a, b));
        int[] out = new int[experts];
        for (int e = 0; e < experts; e++) {
            out[e] = order[e];
        }
        return out;
    }
}
