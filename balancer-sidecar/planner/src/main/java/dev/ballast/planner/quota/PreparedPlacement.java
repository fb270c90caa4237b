package dev.ballast.planner.quota;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;

import java.util.Arrays;

/**
 * Steps 1-5 of the quota rule (docs/quota-rule.md) for one placement of one layer: totals, forced loads, the
 * multi-copy experts in order with their columns of counts, each copy's near demand and rack share, the search bounds,
 * and the copy tables step 6's pass C reads. Its buffers are kept between calls; not thread-safe.
 */
final class PreparedPlacement {
    private final NearShares nearShares = new NearShares();
    LayerPlacement p;
    int ep;
    long[] total;
    long all;
    /** Per GPU: the tokens of its single-copy experts. */
    long[] base = new long[0];
    /** The multi-copy experts, load descending, then index ascending: order[0, multi). */
    int multi;
    int[] order = new int[0];
    /**
     * The multi-copy experts ascending, multiAsc[0, multi): the later steps visit these alone instead of every expert
     * (a planner's placement has a few dozen of 256).
     */
    private int[] multiAsc = new int[0];
    /** slot[e]: expert e's position in order (its column in col), -1 for single-copy experts. */
    int[] slot = new int[0];
    /**
     * The multi-copy experts' columns of counts, col[slot * ep + source], gathered on first use ({@link #columns}):
     * with the counts' sums per node given, only step 10's routing reads them.
     */
    private long[] col = new long[0];
    private boolean gathered;
    private long[] counts;
    /** Per copy: its near demand and rack share. */
    long[] near = new long[0];
    long[] nearRack = new long[0];
    /** The threshold search's bounds. */
    long lo;
    long hi;
    /** Per copy: its expert; per GPU g: its multi-copy experts' copies, gpuCopy[gpuStart[g], gpuStart[g + 1]). */
    int[] copyExpert = new int[0];
    int[] gpuStart = new int[0];
    int[] gpuCopy = new int[0];
    private int[] gpuFill = new int[0];
    private long[] totalBuf = new long[0];
    private long[] keys = new long[0];
    private long[] reach = new long[0];

    /**
     * Steps 1-5 for {@code p} on {@code counts} (row-major [source][expert]): with {@code totals} the per-expert sums
     * of {@code counts} as the caller computed them, else summed here; with {@code nodeSums} their sums per (node,
     * expert), {@code nodeSums[node * experts + e]} by the group's dense node numbers, as the caller computed them, else
     * summed here from the columns.
     */
    void prepare(GroupTopology gt, LayerPlacement p, long[] counts, long[] totals, long[] nodeSums) {
        final int ep = gt.ep();
        final int experts = p.experts();
        if (ep > (1 << 15)) {
            throw new IllegalArgumentException("EP group of " + ep + " GPUs exceeds the quota rule's limit of 32768");
        }
        if (p.gpus() != ep) {
            throw new IllegalArgumentException("placement has " + p.gpus() + " GPUs, group has " + ep);
        }
        if (counts.length != ep * experts) {
            throw new IllegalArgumentException("counts length " + counts.length + " != ep × experts = " + (ep * experts));
        }
        this.p = p;
        this.ep = ep;
        size(ep, experts, p.totalCopies());
        nearShares.size(gt.nodeCount(), gt.rackCount());
        // Step 1: expert totals.
        if (totals == null) {
            total = sumColumns(counts, ep, experts);
        } else if (totals.length != experts) {
            throw new IllegalArgumentException("totals length " + totals.length + " != experts " + experts);
        } else {
            total = totals;
        }
        all = 0;
        for (int e = 0; e < experts; e++) {
            all += total[e];
        }
        // Step 2: forced load of single-copy experts; collect multi-copy experts.
        Arrays.fill(base, 0, ep, 0);
        multi = 0;
        for (int e = 0; e < experts; e++) {
            if (p.copies(e) == 0) {
                throw new IllegalArgumentException("expert " + e + " has no copy");
            }
            if (p.copies(e) == 1) {
                base[p.copyGpu(p.copyStart(e))] += total[e];
            } else {
                multiAsc[multi++] = e;
            }
        }
        // Step 3: multi-copy experts by load descending, then expert index ascending.
        sortByLoadDescending(experts);
        Arrays.fill(slot, 0, experts, -1);
        for (int i = 0; i < multi; i++) {
            slot[order[i]] = i;
        }
        this.counts = counts;
        gathered = false;
        if (nodeSums == null) {
            columns();
        } else if (nodeSums.length != gt.nodeCount() * experts) {
            throw new IllegalArgumentException("node sums length " + nodeSums.length + " != nodes × experts = "
                    + gt.nodeCount() * experts);
        }
        // Step 4: each copy's near demand and rack share. Step 5's reach on the way.
        System.arraycopy(base, 0, reach, 0, ep);
        for (int i = 0; i < multi; i++) {
            int e = order[i];
            int start = p.copyStart(e);
            int k = p.copies(e);
            if (nodeSums == null) {
                nearShares.split(gt, col, i * ep, p, start, k, near, nearRack);
            } else {
                nearShares.splitNodeSums(gt, nodeSums, experts, e, p, start, k, near, nearRack);
            }
            for (int j = 0; j < k; j++) {
                reach[p.copyGpu(start + j)] += total[e];
            }
        }
        long maxBase = 0;
        long maxReach = 0;
        for (int g = 0; g < ep; g++) {
            maxBase = Math.max(maxBase, base[g]);
            maxReach = Math.max(maxReach, reach[g]);
        }
        lo = Math.max((all + ep - 1) / ep, maxBase);
        hi = Math.max(maxReach, lo);
        buildCopyTables();
    }

    /**
     * The multi-copy experts' columns of the counts, {@code [slot[e] * ep + source]}, gathered in one pass over the rows
     * (column reads are cache-hostile) the first time they are asked for after {@link #prepare}.
     */
    long[] columns() {
        if (!gathered) {
            int experts = p.experts();
            if (col.length < multi * ep) {
                col = new long[multi * ep];
            }
            for (int s = 0; s < ep; s++) {
                int row = s * experts;
                for (int i = 0; i < multi; i++) {
                    col[i * ep + s] = counts[row + order[i]];
                }
            }
            gathered = true;
        }
        return col;
    }

    /** Step 1 from the counts, rejecting a negative count. */
    private long[] sumColumns(long[] counts, int ep, int experts) {
        long[] sums = totalBuf;
        Arrays.fill(sums, 0, experts, 0);
        long signs = 0;
        for (int s = 0; s < ep; s++) {
            int row = s * experts;
            // Branch-free so the JIT can vectorize; a negative count sets the sign bit of {@code signs}.
            for (int e = 0; e < experts; e++) {
                long c = counts[row + e];
                signs |= c;
                sums[e] += c;
            }
        }
        if (signs < 0) {
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] < 0) {
                    throw new IllegalArgumentException("negative count at source " + i / experts + " expert " + i % experts);
                }
            }
        }
        return sums;
    }

    /** Grows the buffers to fit a group of {@code ep} GPUs, {@code experts} experts and {@code copies} copies. */
    private void size(int ep, int experts, int copies) {
        if (base.length < ep) {
            base = new long[ep];
            reach = new long[ep];
            gpuStart = new int[ep + 1];
            gpuFill = new int[ep];
        }
        if (slot.length < experts) {
            slot = new int[experts];
            order = new int[experts];
            multiAsc = new int[experts];
            keys = new long[experts];
            totalBuf = new long[experts];
        }
        if (near.length < copies) {
            near = new long[copies];
            nearRack = new long[copies];
            copyExpert = new int[copies];
            gpuCopy = new int[copies];
        }
    }

    /**
     * The multi-copy experts' copies on each GPU (ascending copy index) and each such copy's expert, for pass C, which
     * reads no other copy. Copy indices ascend with the expert, so visiting the experts ascending keeps that order.
     */
    private void buildCopyTables() {
        Arrays.fill(gpuStart, 0, ep + 1, 0);
        for (int i = 0; i < multi; i++) {
            int e = multiAsc[i];
            for (int c = p.copyStart(e); c < p.copyStart(e) + p.copies(e); c++) {
                copyExpert[c] = e;
                gpuStart[p.copyGpu(c) + 1]++;
            }
        }
        for (int g = 0; g < ep; g++) {
            gpuStart[g + 1] += gpuStart[g];
        }
        System.arraycopy(gpuStart, 0, gpuFill, 0, ep);
        for (int i = 0; i < multi; i++) {
            int e = multiAsc[i];
            for (int c = p.copyStart(e); c < p.copyStart(e) + p.copies(e); c++) {
                gpuCopy[gpuFill[p.copyGpu(c)]++] = c;
            }
        }
    }

    /** Fills {@code order[0, multi)} with the multi-copy experts, load descending, then index ascending. */
    private void sortByLoadDescending(int experts) {
        int m = 0;
        for (int i = 0; i < multi; i++) {
            int e = multiAsc[i];
            if (total[e] >= (1L << 49) || experts > (1 << 14)) {
                throw new ArithmeticException("expert load " + total[e] + " too large for the quota rule's sort key");
            }
            // Ascending sort of (load, -index) read backwards gives load descending, index ascending.
            keys[m++] = (total[e] << 14) | ((1 << 14) - 1 - e);
        }
        Arrays.sort(keys, 0, m);
        for (int i = 0; i < m; i++) {
            order[i] = (1 << 14) - 1 - (int) (keys[m - 1 - i] & ((1 << 14) - 1));
        }
    }

}
