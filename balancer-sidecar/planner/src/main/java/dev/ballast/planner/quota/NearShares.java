package dev.ballast.planner.quota;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;

import java.util.Arrays;

/**
 * Step 4 of the quota rule: each copy's near demand (its node's tokens for the expert, split among the expert's copies
 * on that node) and rack share (the same at rack level). Keeps its per-group scratch between calls.
 */
final class NearShares {
    private long[] nodeSums = new long[0];
    private long[] rackSums = new long[0];
    private int[] groupCopies = new int[0];
    private int[] groupRank = new int[0];

    /** Grows the scratch to fit {@code nodes} nodes and {@code racks} racks. */
    void size(int nodes, int racks) {
        int groups = Math.max(nodes, racks);
        if (nodeSums.length < groups) {
            nodeSums = new long[groups];
            rackSums = new long[groups];
            groupCopies = new int[groups];
            groupRank = new int[groups];
        }
    }

    /**
     * Splits one expert's tokens (its column in {@code col} from {@code colBase}) among its copies {@code start ..
     * start + k}, by node into {@code near} and by rack into {@code nearRack}: each copy gets its group's tokens divided
     * by the group's copies, the remainder one token each to the group's first copies. A rack's tokens are the sum of
     * its nodes'. Leaves the scratch zeroed.
     */
    void split(GroupTopology gt, long[] col, int colBase, LayerPlacement p, int start, int k, long[] near, long[] nearRack) {
        int ep = gt.ep();
        int nodes = gt.nodeCount();
        int racks = gt.rackCount();
        long[] nodeSum = nodeSums;
        long[] rackSum = rackSums;
        for (int s = 0; s < ep; s++) {
            nodeSum[gt.nodeIndex(s)] += col[colBase + s];
        }
        for (int n = 0; n < nodes; n++) {
            rackSum[gt.rackOfNode(n)] += nodeSum[n];
        }
        divide(gt, false, nodeSum, p, start, k, near);
        divide(gt, true, rackSum, p, start, k, nearRack);
        Arrays.fill(nodeSum, 0, nodes, 0);
        Arrays.fill(rackSum, 0, racks, 0);
    }

    /**
     * {@link #split} from the tokens of expert e per node as the caller summed them, {@code sums[node * experts +
     * e]}: the same shares without reading the column.
     */
    void splitNodeSums(GroupTopology gt, long[] sums, int experts, int e, LayerPlacement p, int start, int k,
                       long[] near, long[] nearRack) {
        if (gt.groupsAreRankRuns()) {
            divideRunsInPlace(gt, sums, experts, e, p, start, k, near);
            if (gt.rackCount() == 1) {
                // One rack: every copy is in it, so the rack's run is all k copies and its tokens all the nodes'.
                long d = 0;
                for (int n = 0; n < gt.nodeCount(); n++) {
                    d += sums[n * experts + e];
                }
                share(d, k, start, nearRack);
            } else {
                long[] rackSum = rackSums;
                for (int n = 0; n < gt.nodeCount(); n++) {
                    rackSum[gt.rackOfNode(n)] += sums[n * experts + e];
                }
                divideRuns(gt, true, rackSum, p, start, k, nearRack);
                Arrays.fill(rackSum, 0, gt.rackCount(), 0);
            }
            return;
        }
        int nodes = gt.nodeCount();
        long[] nodeSum = nodeSums;
        long[] rackSum = rackSums;
        for (int n = 0; n < nodes; n++) {
            nodeSum[n] = sums[n * experts + e];
            rackSum[gt.rackOfNode(n)] += nodeSum[n];
        }
        divide(gt, false, nodeSum, p, start, k, near);
        divide(gt, true, rackSum, p, start, k, nearRack);
        Arrays.fill(nodeSum, 0, nodes, 0);
        Arrays.fill(rackSum, 0, gt.rackCount(), 0);
    }

    /** {@link #split}'s division of the group sums {@code sum} (by node, or by rack with {@code byRack}). */
    private void divide(GroupTopology gt, boolean byRack, long[] sum, LayerPlacement p, int start, int k, long[] out) {
        if (gt.groupsAreRankRuns()) {
            divideRuns(gt, byRack, sum, p, start, k, out);
            return;
        }
        int[] copies = groupCopies;
        int[] rank = groupRank;
        for (int j = 0; j < k; j++) {
            int gpu = p.copyGpu(start + j);
            copies[byRack ? gt.rackIndex(gpu) : gt.nodeIndex(gpu)]++;
        }
        for (int j = 0; j < k; j++) {
            int gpu = p.copyGpu(start + j);
            int g = byRack ? gt.rackIndex(gpu) : gt.nodeIndex(gpu);
            long d = sum[g];
            int m = copies[g];
            // A group's only copy takes all of it (most groups have one copy: no division needed, a slow instruction).
            long share = m == 1 ? d : quotient(d, m);
            out[start + j] = m == 1 ? d : share + (rank[g] < d - share * m ? 1 : 0);
            rank[g]++;
        }
        // Only the copies' groups were touched: clear those (k of them at most, against every node or rack).
        for (int j = 0; j < k; j++) {
            int gpu = p.copyGpu(start + j);
            int g = byRack ? gt.rackIndex(gpu) : gt.nodeIndex(gpu);
            copies[g] = 0;
            rank[g] = 0;
        }
    }

    /**
     * {@link #divideRuns} by node of expert e's tokens per node read in place, {@code sums[node * experts + e]}, so that
     * no node's sum is copied or cleared: the same shares as through the scratch.
     */
    private static void divideRunsInPlace(GroupTopology gt, long[] sums, int experts, int e, LayerPlacement p,
                                          int start, int k, long[] out) {
        int i = 0;
        while (i < k) {
            int g = gt.nodeIndex(p.copyGpu(start + i));
            int j = i + 1;
            while (j < k && gt.nodeIndex(p.copyGpu(start + j)) == g) {
                j++;
            }
            share(sums[g * experts + e], j - i, start + i, out);
            i = j;
        }
    }

    /** {@code d} split among the {@code m} copies from {@code at}: the quotient each, one more for the first remainder. */
    private static void share(long d, int m, int at, long[] out) {
        if (m == 1) {
            out[at] = d;
        } else {
            long share = quotient(d, m);
            long extra = d - share * m;
            for (int r = 0; r < m; r++) {
                out[at + r] = share + (r < extra ? 1 : 0);
            }
        }
    }

    /**
     * {@link #divide} where every node and rack is a run of ranks: the copies ascend by GPU, so a group's copies are a
     * run of them, numbered in order, and a group of several divides once.
     */
    private static void divideRuns(GroupTopology gt, boolean byRack, long[] sum, LayerPlacement p, int start, int k,
                                   long[] out) {
        int i = 0;
        while (i < k) {
            int gpu = p.copyGpu(start + i);
            int g = byRack ? gt.rackIndex(gpu) : gt.nodeIndex(gpu);
            int j = i + 1;
            while (j < k && (byRack ? gt.rackIndex(p.copyGpu(start + j)) : gt.nodeIndex(p.copyGpu(start + j))) == g) {
                j++;
            }
            long d = sum[g];
            int m = j - i;
            if (m == 1) {
                out[start + i] = d;
            } else {
                long share = quotient(d, m);
                long extra = d - share * m;
                for (int r = 0; r < m; r++) {
                    out[start + i + r] = share + (r < extra ? 1 : 0);
                }
            }
            i = j;
        }
    }

    /**
     * {@code d / m} for {@code 0 <= d} and {@code m >= 1}, through a double division where {@code d < 2^52}: both are
     * exact doubles, the quotient's rounding error is under {@code 2^-52 · d / m < 1 / m}, less than the distance from
     * a non-integer {@code d / m} to the integers beside it, so truncating gives the same quotient as the 64-bit
     * division, at a fraction of its latency (that division was the largest part of step 4 here).
     */
    static long quotient(long d, int m) {
        return d < (1L << 52) ? (long) ((double) d / m) : d / m;
    }
}
