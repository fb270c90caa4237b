package dev.ballast.planner.planners;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.StaticLayout;

/**
 * What a trainer running EPLB does with EPLB's packs: EPLB says which experts share a GPU, not which GPU a pack
 * lands on, so the trainer gives each pack the GPU (within the block EPLB packed it for) that already holds the most
 * of the pack's experts as masters, and moves the master of every expert whose home then holds no copy of it to one
 * of its copies, the one whose GPU sends the fewest replica refreshes so far (docs/cost-model.md, "Master
 * migration"). A maximum-weight assignment per block (Hungarian method,
 * O(n³)); deterministic.
 */
final class PackRelabel {
    private PackRelabel() {
    }

    /**
     * @param packs      {@code packs[p]}: the experts of pack p's slots, as EPLB packed them for GPU p
     * @param blockSize  packs and GPUs are relabelled only within consecutive blocks of this size (a node for EPLB's
     *                   hierarchical policy, the whole group for the global one)
     */
    static LayerPlacement relabel(GroupTopology gt, int experts, int[][] packs, int blockSize) {
        int ep = packs.length;
        int[][] slots = new int[ep][];
        for (int b = 0; b < ep; b += blockSize) {
            int[] gpuOfPack = assign(packs, b, blockSize, ep, experts);
            for (int i = 0; i < blockSize; i++) {
                slots[b + gpuOfPack[i]] = packs[b + i];
            }
        }
        LayerPlacement p = LayerPlacement.ofPhysicalSlots(experts, slots);
        int[] masters = new int[experts];
        // Refreshes each GPU sends per step as master: a moved master goes where that is lowest, so no GPU's link
        // becomes the one every replica waits on.
        int[] refreshes = new int[ep];
        java.util.List<Integer> homeless = new java.util.ArrayList<>();
        for (int e = 0; e < experts; e++) {
            int home = StaticLayout.home(e, ep, experts);
            if (p.holds(home, e)) {
                masters[e] = home;
                refreshes[home] += p.copies(e) - 1;
            } else {
                homeless.add(e);
            }
        }
        for (int e : homeless) {
            masters[e] = master(gt, p, e, StaticLayout.home(e, ep, experts), refreshes);
            refreshes[masters[e]] += p.copies(e) - 1;
        }
        return p.withMasters(masters);
    }

    /** The copy whose GPU sends the fewest refreshes so far; then the nearest to the home (link class); then lowest GPU. */
    private static int master(GroupTopology gt, LayerPlacement p, int e, int home, int[] refreshes) {
        int best = -1;
        for (int c = p.copyStart(e); c < p.copyStart(e) + p.copies(e); c++) {
            int g = p.copyGpu(c);
            if (best < 0 || refreshes[g] < refreshes[best]
                    || refreshes[g] == refreshes[best] && gt.linkClass(home, g) < gt.linkClass(home, best)) {
                best = g;
            }
        }
        return best;
    }

    /** For the block starting at {@code b}: block-local GPU of each block-local pack, maximizing masters kept. */
    private static int[] assign(int[][] packs, int b, int n, int ep, int experts) {
        // cost[i][j] = -(distinct experts of pack b+i whose home is GPU b+j)
        int[][] cost = new int[n][n];
        for (int i = 0; i < n; i++) {
            int[] pack = packs[b + i];
            for (int k = 0; k < pack.length; k++) {
                int e = pack[k];
                boolean seen = false;
                for (int m = 0; m < k; m++) {
                    seen |= pack[m] == e;
                }
                int h = StaticLayout.home(e, ep, experts) - b;
                if (!seen && h >= 0 && h < n) {
                    cost[i][h]--;
                }
            }
        }
        return hungarian(cost);
    }

    /** Minimum-cost perfect assignment of rows to columns (row i → column result[i]); e-maxx's O(n³) potentials form. */
    static int[] hungarian(int[][] a) {
        int n = a.length;
        long[] u = new long[n + 1];
        long[] v = new long[n + 1];
        int[] p = new int[n + 1];
        int[] way = new int[n + 1];
        for (int i = 1; i <= n; i++) {
            p[0] = i;
            int j0 = 0;
            long[] minv = new long[n + 1];
            java.util.Arrays.fill(minv, Long.MAX_VALUE);
            boolean[] used = new boolean[n + 1];
            do {
                used[j0] = true;
                int i0 = p[j0];
                long delta = Long.MAX_VALUE;
                int j1 = 0;
                for (int j = 1; j <= n; j++) {
                    if (!used[j]) {
                        long cur = a[i0 - 1][j - 1] - u[i0] - v[j];
                        if (cur < minv[j]) {
                            minv[j] = cur;
                            way[j] = j0;
                        }
                        if (minv[j] < delta) {
                            delta = minv[j];
                            j1 = j;
                        }
                    }
                }
                for (int j = 0; j <= n; j++) {
                    if (used[j]) {
                        u[p[j]] += delta;
                        v[j] -= delta;
                    } else {
                        minv[j] -= delta;
                    }
                }
                j0 = j1;
            } while (p[j0] != 0);
            do {
                int j1 = way[j0];
                p[j0] = p[j1];
                j0 = j1;
            } while (j0 != 0);
        }
        int[] rowToCol = new int[n];
        for (int j = 1; j <= n; j++) {
            rowToCol[p[j] - 1] = j - 1;
        }
        return rowToCol;
    }
}
