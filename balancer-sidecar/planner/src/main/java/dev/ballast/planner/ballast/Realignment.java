package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.StaticLayout;

import java.util.Arrays;

/**
 * Re-aligns a from-scratch placement to the plan in use: the same replicas per node, kept on the GPUs that already hold
 * them where that keeps the from-scratch plan's balance, so that an incremental re-plan towards it moves only what the
 * node-level placement changes.
 */
public final class Realignment {
    private Realignment() {
    }

    /**
     * The placement {@code target} with each node's replicas re-assigned to that node's GPUs. Each replica weighs its
     * quota in {@code target} (the quota rule's, steps 1-9) and each GPU starts from its home copies' quotas there; per
     * node, heaviest replica first, a replica stays on a GPU of the node that already holds it in {@code current} (the
     * lightest such) if that GPU's load then stays within the target's busiest GPU; the rest go, heaviest first, to the
     * node's lightest GPU with room (ties: lower GPU). Moved within its node a replica keeps about its quota, so the
     * result is about as balanced as {@code target}: keeping every replica that {@code current} already holds on the
     * node, wherever it sits, piled a node's kept replicas onto a few GPUs (docs/planner.md, "Incremental re-plans at
     * other scales"). {@code target} itself comes back unchanged when {@code current} is {@code target}.
     */
    public static LayerPlacement align(LayerScorer scorer, LayerPlacement target, LayerPlacement current, int slots) {
        GroupTopology gt = scorer.group();
        int ep = gt.ep();
        int experts = target.experts();
        int nc = gt.nodeCount();
        long[] quota = scorer.copyQuotas(target);
        long[] load = new long[ep];
        long[] targetLoad = new long[ep];
        // The target's replicas, grouped by node (counting pass, then fill).
        int[] nodeStart = new int[nc + 1];
        for (int e = 0; e < experts; e++) {
            int home = StaticLayout.home(e, ep, experts);
            for (int c = target.copyStart(e); c < target.copyStart(e) + target.copies(e); c++) {
                int g = target.copyGpu(c);
                targetLoad[g] += quota[c];
                if (g == home) {
                    load[g] += quota[c];
                } else {
                    nodeStart[gt.nodeIndex(g) + 1]++;
                }
            }
        }
        long cap = 0;
        for (int g = 0; g < ep; g++) {
            cap = Math.max(cap, targetLoad[g]);
        }
        for (int n = 0; n < nc; n++) {
            nodeStart[n + 1] += nodeStart[n];
        }
        int[] fill = Arrays.copyOf(nodeStart, nc);
        int[] repExpert = new int[nodeStart[nc]];
        long[] repQuota = new long[nodeStart[nc]];
        for (int e = 0; e < experts; e++) {
            int home = StaticLayout.home(e, ep, experts);
            for (int c = target.copyStart(e); c < target.copyStart(e) + target.copies(e); c++) {
                int g = target.copyGpu(c);
                if (g != home) {
                    int k = fill[gt.nodeIndex(g)]++;
                    repExpert[k] = e;
                    repQuota[k] = quota[c];
                }
            }
        }
        int[][] lists = new int[ep][];
        int[] count = new int[ep];
        int[] repCount = new int[ep];
        // has: a bit per (GPU g, expert e), whether lists[g] holds e (a look-up, not a scan of the list); held[g]:
        // whether the plan in use holds the replica being placed on GPU g (marked from its copies, not searched for).
        long[] has = new long[ep * words(experts)];
        boolean[] held = new boolean[ep];
        for (int g = 0; g < ep; g++) {
            int first = StaticLayout.firstExpert(g, ep, experts);
            int homes = StaticLayout.homeCount(g, ep, experts);
            lists[g] = new int[homes + slots];
            for (int i = 0; i < homes; i++) {
                lists[g][i] = first + i;
                set(has, experts, g, first + i, true);
            }
            count[g] = homes;
        }
        for (int n = 0; n < nc; n++) {
            int from = nodeStart[n];
            int[] order = new int[nodeStart[n + 1] - from];
            // Heaviest first; ties by expert, so the plan depends on the input only. Insertion sort: a node holds a
            // few replicas per GPU.
            for (int i = 0; i < order.length; i++) {
                int k = from + i;
                int j = i;
                while (j > 0 && (repQuota[order[j - 1]] < repQuota[k]
                        || repQuota[order[j - 1]] == repQuota[k] && repExpert[order[j - 1]] > repExpert[k])) {
                    order[j] = order[j - 1];
                    j--;
                }
                order[j] = k;
            }
            boolean[] placed = new boolean[order.length];
            for (int pass = 0; pass < 2; pass++) {
                for (int i = 0; i < order.length; i++) {
                    if (placed[i]) {
                        continue;
                    }
                    int e = repExpert[order[i]];
                    long q = repQuota[order[i]];
                    int home = StaticLayout.home(e, ep, experts);
                    int at = -1;
                    if (pass == 0) {
                        for (int c = current.copyStart(e); c < current.copyStart(e) + current.copies(e); c++) {
                            held[current.copyGpu(c)] = true;
                        }
                    }
                    for (int m = gt.nodeMemberStart(n); m < gt.nodeMemberStart(n + 1); m++) {
                        int x = gt.nodeMember(m);
                        if (x == home || repCount[x] >= slots || pass == 0 && (!held[x] || load[x] + q > cap)
                                || has(has, experts, x, e)) {
                            continue;
                        }
                        if (at < 0 || load[x] < load[at]) {
                            at = x;
                        }
                    }
                    if (pass == 0) {
                        for (int c = current.copyStart(e); c < current.copyStart(e) + current.copies(e); c++) {
                            held[current.copyGpu(c)] = false;
                        }
                    }
                    if (at >= 0) {
                        set(has, experts, at, e, true);
                        lists[at][count[at]++] = e;
                        repCount[at]++;
                        load[at] += q;
                        placed[i] = true;
                    }
                }
            }
            for (int i = 0; i < order.length; i++) {
                if (!placed[i]) {
                    placed[i] = makeRoom(gt, n, repExpert[order[i]], repQuota[order[i]], lists, count, repCount,
                            load, slots, experts, has);
                }
            }
        }
        for (int g = 0; g < ep; g++) {
            lists[g] = Arrays.copyOf(lists[g], count[g]);
        }
        return LayerPlacement.of(experts, lists);
    }

    /**
     * Places replica {@code e} (quota {@code q}) on node {@code n} when every GPU of the node with room is its home or
     * holds it already: a replica on a GPU that may take {@code e} moves to one with room that may take it. The
     * heaviest-first order can fill the only GPUs an expert may use; the target itself placed every replica.
     */
    private static boolean makeRoom(GroupTopology gt, int n, int e, long q, int[][] lists, int[] count, int[] repCount,
                                    long[] load, int slots, int experts, long[] has) {
        int ep = lists.length;
        for (int m = gt.nodeMemberStart(n); m < gt.nodeMemberStart(n + 1); m++) {
            int x = gt.nodeMember(m);
            if (x == StaticLayout.home(e, ep, experts) || has(has, experts, x, e)) {
                continue;
            }
            for (int i = StaticLayout.homeCount(x, ep, experts); i < count[x]; i++) {
                int y = lists[x][i];
                for (int mz = gt.nodeMemberStart(n); mz < gt.nodeMemberStart(n + 1); mz++) {
                    int z = gt.nodeMember(mz);
                    if (repCount[z] < slots && z != StaticLayout.home(y, ep, experts) && !has(has, experts, z, y)) {
                        lists[z][count[z]++] = y;
                        set(has, experts, z, y, true);
                        repCount[z]++;
                        lists[x][i] = e;
                        set(has, experts, x, y, false);
                        set(has, experts, x, e, true);
                        load[x] += q;
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Words of a GPU's row of expert bits. */
    private static int words(int experts) {
        return (experts + 63) >>> 6;
    }

    private static boolean has(long[] bits, int experts, int g, int e) {
        return (bits[g * words(experts) + (e >>> 6)] & (1L << e)) != 0;
    }

    private static void set(long[] bits, int experts, int g, int e, boolean on) {
        int i = g * words(experts) + (e >>> 6);
        bits[i] = on ? bits[i] | (1L << e) : bits[i] & ~(1L << e);
    }
}
