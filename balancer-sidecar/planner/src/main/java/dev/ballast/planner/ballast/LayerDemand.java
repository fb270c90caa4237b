package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LinkTokens;

import java.util.Arrays;

/**
 * One layer's demand on one EP group, summed once from its counts for every step of the planner: per-expert totals,
 * per-(node, expert) tokens, the most tokens any source sends, and the all-at-home link sums (what each GPU receives
 * at once; what each sends, a second pass over the counts, only when an exact scoring needs it). Immutable to its
 * users: the arrays the package reads in its hot loops are never written after construction.
 */
public final class LayerDemand {
    private final GroupTopology gt;
    private final long[] counts;
    private final int experts;
    private final long[] total;
    private final long[] nodeDemand;
    private final long all;
    private final long maxSent;
    private final long[] homeRecv;
    private LinkTokens.Home home;

    private LayerDemand(GroupTopology gt, long[] counts, long[] total, long[] nodeDemand, long all, long maxSent,
                        long[] homeRecv) {
        this.gt = gt;
        this.counts = counts;
        this.experts = total.length;
        this.total = total;
        this.nodeDemand = nodeDemand;
        this.all = all;
        this.maxSent = maxSent;
        this.homeRecv = homeRecv;
    }

    /** @param counts row-major [source EP rank][expert] token assignments of the layer, all >= 0 */
    public static LayerDemand of(GroupTopology gt, long[] counts, int experts) {
        return of(gt, counts, experts, null);
    }

    /**
     * As {@link #of(GroupTopology, long[], int)}, refilling the arrays of {@code spent} (null: new ones), a demand its
     * owner reads no more (the planner's previous layer on this thread). A fresh array is memory the cache has not
     * seen: allocating the 20 KB of a 256-expert, 64-GPU layer afresh cost more than summing the counts into it.
     */
    public static LayerDemand of(GroupTopology gt, long[] counts, int experts, LayerDemand spent) {
        int ep = gt.ep();
        int nc = gt.nodeCount();
        if (ep > experts) {
            throw new IllegalArgumentException("EP group of " + ep + " GPUs exceeds the " + experts + " experts");
        }
        if (counts.length != ep * experts) {
            throw new IllegalArgumentException("counts length " + counts.length + " != ep × experts = " + ep * experts);
        }
        boolean reuse = spent != null && spent.total.length == experts && spent.nodeDemand.length == experts * nc
                && spent.homeRecv.length == ep * 4;
        long[] total = reuse ? spent.total : new long[experts];
        long[] nodeDemand = reuse ? spent.nodeDemand : new long[experts * nc];
        long[] homeRecv = reuse ? spent.homeRecv : new long[ep * 4];
        if (reuse) {
            Arrays.fill(total, 0);
            Arrays.fill(nodeDemand, 0);
        }
        long signs = 0;
        long maxSent = 0;
        for (int s = 0; s < ep; s++) {
            int row = s * experts;
            int nodeRow = gt.nodeIndex(s) * experts;
            long sent = 0;
            for (int e = 0; e < experts; e++) {
                long x = counts[row + e];
                nodeDemand[nodeRow + e] += x;
                signs |= x;
                sent += x;
            }
            maxSent = Math.max(maxSent, sent);
        }
        if (signs < 0) {
            for (int i = 0; i < ep * experts; i++) {
                if (counts[i] < 0) {
                    throw new IllegalArgumentException("negative count at source " + i / experts + " expert " + i % experts);
                }
            }
        }
        for (int x = 0; x < nc; x++) {
            for (int e = 0; e < experts; e++) {
                total[e] += nodeDemand[x * experts + e];
            }
        }
        long all = 0;
        for (long t : total) {
            all += t;
        }
        LinkTokens.Home.received(gt, counts, experts, nodeDemand, total, homeRecv);
        return new LayerDemand(gt, counts, total, nodeDemand, all, maxSent, homeRecv);
    }

    public int experts() {
        return experts;
    }

    /** Expert e's tokens from every source. */
    public long total(int e) {
        return total[e];
    }

    /** Expert e's tokens from the sources on node {@code node} (the group's dense node number). */
    public long nodeTokens(int node, int e) {
        return nodeDemand[node * experts + e];
    }

    /** Every token assignment of the layer. */
    public long allTokens() {
        return all;
    }

    /** The most tokens one source sends in this layer (its row of counts), wherever they go. */
    public long maxSent() {
        return maxSent;
    }

    /** What GPU g receives over link class {@code cls} when every expert runs at home. */
    public long homeReceived(int g, int cls) {
        return homeRecv[g * 4 + cls];
    }

    /** Row-major {@code [source][expert]} counts of the layer (read only). */
    long[] counts() {
        return counts;
    }

    /** Per-expert totals, for the quota rule's search (read only). */
    long[] totals() {
        return total;
    }

    /** {@code [node * experts + e]}: {@link #nodeTokens} as the hot loops read it (read only). */
    long[] nodeDemand() {
        return nodeDemand;
    }

    /** {@code [g * 4 + class]}: {@link #homeReceived} as the cost model reads it (read only). */
    long[] homeRecv() {
        return homeRecv;
    }

    /** The all-at-home link sums, sent and received; the sent half is summed on first use. */
    LinkTokens.Home home() {
        if (home == null) {
            home = new LinkTokens.Home(LinkTokens.Home.sent(gt, counts, experts), homeRecv);
        }
        return home;
    }
}
