package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.StaticLayout;

import java.util.Arrays;

/**
 * Re-aligns a from-scratch placement to the plan in use: the same replicas per node, kept on the GPUs that already hold
 * them, so that an incremental re-plan towards it moves only what the node-level placement changes.
 */
public final class Realignment {
    private Realignment() {
    }

    /**
     * The placement {@code target} with each node's replicas moved onto the GPUs of that node that already hold them in
     * {@code current}; the rest go to the node's free slots, the target's own GPU first, then ascending GPU.
     */
    public static LayerPlacement align(GroupTopology gt, LayerPlacement target, LayerPlacement current, int slots) {
        int ep = gt.ep();
        int experts = target.experts();
        int[][] lists = new int[ep][];
        int[] count = new int[ep];
        int[][] reps = new int[ep][slots];
        for (int g = 0; g < ep; g++) {
            int first = StaticLayout.firstExpert(g, ep, experts);
            int homes = StaticLayout.homeCount(g, ep, experts);
            lists[g] = new int[homes + slots];
            for (int i = 0; i < homes; i++) {
                lists[g][i] = first + i;
            }
            count[g] = homes;
        }
        int[] repCount = new int[ep];
        boolean[] placed = new boolean[ep * (slots + 1)];
        // Pass 1: replicas the target wants on a node and the current placement already has on that node stay put.
        for (int g = 0; g < ep; g++) {
            int homes = StaticLayout.homeCount(g, ep, experts);
            int k = 0;
            for (int i = 0; i < target.expertCount(g); i++) {
                int e = target.expertAt(g, i);
                if (StaticLayout.home(e, ep, experts) != g) {
                    reps[g][k++] = e;
                }
            }
            for (int i = k; i < slots; i++) {
                reps[g][i] = -1;
            }
            count[g] = homes;
        }
        for (int g = 0; g < ep; g++) {
            for (int k = 0; k < slots; k++) {
                int e = reps[g][k];
                if (e < 0) {
                    continue;
                }
                int keepAt = -1;
                for (int x = 0; x < ep && keepAt < 0; x++) {
                    if (gt.nodeIndex(x) == gt.nodeIndex(g) && current.holds(x, e) && StaticLayout.home(e, ep, experts) != x
                            && repCount[x] < slots && !contains(lists[x], count[x], e)) {
                        keepAt = x;
                    }
                }
                if (keepAt >= 0) {
                    lists[keepAt][count[keepAt]++] = e;
                    repCount[keepAt]++;
                    placed[g * (slots + 1) + k] = true;
                }
            }
        }
        // Pass 2: the rest, on the target's GPU if it has room, else the node's first GPU with room.
        for (int g = 0; g < ep; g++) {
            for (int k = 0; k < slots; k++) {
                int e = reps[g][k];
                if (e < 0 || placed[g * (slots + 1) + k]) {
                    continue;
                }
                int at = -1;
                if (repCount[g] < slots && !contains(lists[g], count[g], e)) {
                    at = g;
                }
                for (int x = 0; x < ep && at < 0; x++) {
                    if (gt.nodeIndex(x) == gt.nodeIndex(g) && repCount[x] < slots && StaticLayout.home(e, ep, experts) != x
                            && !contains(lists[x], count[x], e)) {
                        at = x;
                    }
                }
                if (at >= 0) {
                    lists[at][count[at]++] = e;
                    repCount[at]++;
                }
            }
        }
        for (int g = 0; g < ep; g++) {
            lists[g] = Arrays.copyOf(lists[g], count[g]);
        }
        return LayerPlacement.of(experts, lists);
    }

    private static boolean contains(int[] list, int n, int e) {
        for (int i = 0; i < n; i++) {
            if (list[i] == e) {
                return true;
            }
        }
        return false;
    }
}
