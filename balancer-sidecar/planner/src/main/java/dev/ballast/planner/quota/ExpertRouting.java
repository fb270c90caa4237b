package dev.ballast.planner.quota;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;

import java.util.Arrays;

/**
 * Step 10 of the quota rule for one multi-copy expert at a time: what each of its copies still has room for and what
 * each source still has to send, with the copies with room grouped by node and by rack. Keeps its buffers between
 * experts and calls.
 */
final class ExpertRouting {
    /** Per source: tokens for the expert not yet sent. */
    long[] avail = new long[0];
    /** Per copy j of the expert: room left, its GPU, and what its own GPU sent it (class 0). */
    long[] remaining = new long[0];
    int[] gpuOfCopy = new int[0];
    long[] sameGpu = new long[0];
    /** The copies with room, grouped by node (by rack): group x's are from nodeStart[x] to nodeStart[x + 1]. */
    int[] byNode = new int[0];
    int[] byRack = new int[0];
    /** The copies with room for class 3, in order. */
    int[] active = new int[0];
    int[] nodeStart = new int[0];
    int[] rackStart = new int[0];
    /** Per group: the position of its first copy with room, as sources fill them in order. */
    int[] nodeFill = new int[0];
    int[] rackFill = new int[0];

    /** Grows the buffers to fit a group of {@code ep} GPUs on {@code nodes} nodes and {@code racks} racks. */
    void size(int ep, int copies, int nodes, int racks) {
        if (avail.length < ep) {
            avail = new long[ep];
        }
        if (remaining.length < copies) {
            remaining = new long[copies];
            sameGpu = new long[copies];
            gpuOfCopy = new int[copies];
            byNode = new int[copies];
            byRack = new int[copies];
            active = new int[copies];
        }
        if (nodeStart.length < nodes + 1) {
            nodeStart = new int[nodes + 1];
            nodeFill = new int[nodes];
        }
        if (rackStart.length < racks + 1) {
            rackStart = new int[racks + 1];
            rackFill = new int[racks];
        }
    }

    /**
     * Starts multi-copy expert e of the searched placement: its copies' quotas into remaining, their GPUs into
     * gpuOfCopy, its column into avail, then class 0 (same GPU: source s meets only the copy on GPU s), each copy's
     * take into sameGpu and out of remaining and avail. Returns the tokens left to route.
     */
    long start(ThresholdSearch search, int e) {
        LayerPlacement p = search.in.p;
        int ep = search.in.ep;
        int first = p.copyStart(e);
        int k = p.copies(e);
        long left = 0;
        for (int j = 0; j < k; j++) {
            remaining[j] = search.quota[first + j];
            gpuOfCopy[j] = p.copyGpu(first + j);
            left += remaining[j];
        }
        System.arraycopy(search.in.columns(), search.in.slot[e] * ep, avail, 0, ep);
        for (int j = 0; j < k; j++) {
            int s = gpuOfCopy[j];
            long x = Math.min(avail[s], remaining[j]);
            avail[s] -= x;
            remaining[j] -= x;
            left -= x;
            sameGpu[j] = x;
        }
        return left;
    }

    /**
     * Groups the expert's {@code k} copies with room left by node (by rack with {@code rack}), ascending within a
     * group (the fill positions serve as cursors on the way).
     */
    void groupCopiesWithRoom(GroupTopology gt, boolean rack, int k) {
        int groups = rack ? gt.rackCount() : gt.nodeCount();
        int[] start = rack ? rackStart : nodeStart;
        int[] fill = rack ? rackFill : nodeFill;
        int[] list = rack ? byRack : byNode;
        Arrays.fill(start, 0, groups + 1, 0);
        for (int j = 0; j < k; j++) {
            if (remaining[j] > 0) {
                start[(rack ? gt.rackIndex(gpuOfCopy[j]) : gt.nodeIndex(gpuOfCopy[j])) + 1]++;
            }
        }
        for (int x = 0; x < groups; x++) {
            start[x + 1] += start[x];
        }
        System.arraycopy(start, 0, fill, 0, groups);
        for (int j = 0; j < k; j++) {
            if (remaining[j] > 0) {
                list[fill[rack ? gt.rackIndex(gpuOfCopy[j]) : gt.nodeIndex(gpuOfCopy[j])]++] = j;
            }
        }
    }
}
