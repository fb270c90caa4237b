package dev.ballast.planner.ballast;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.LinkClass;

/**
 * A lower bound on the predicted seconds of the plan in use with one {@link SlotChange} applied, from what the change
 * cannot move: an expert with a single copy computes all its tokens there and receives each over its link, whatever
 * the quota rule does with the others. So the busiest GPU computes at least the largest such forced load (and the
 * mean), and the busiest link receives at least those experts' tokens. The {@link IncrementalWalk} ranks a target's
 * changes by it: a change that lowers it (a second copy of the single-copy expert at the bottleneck, which is where the
 * bottleneck is when the hot set has moved) could gain most; one that leaves it where it is gains at most what the rule
 * balances better. O(EP) per change against a run of the quota rule.
 */
final class ChangeBound {
    private final GroupTopology gt;
    private final LayerDemand demand;
    private final LayerPlacement current;
    private final CostModel cost;
    private final double interval;
    private final double tokenBytes;
    private final long mean;
    /** Tokens the single-copy experts of each GPU force onto it. */
    private final long[] base;
    /** {@code [g * 4 + class]}: tokens each GPU receives for its single-copy experts, by link class. */
    private final long[] recv;
    private final long[] scratch;

    ChangeBound(LayerScorer scorer, LayerPlacement current) {
        this.gt = scorer.group();
        this.demand = scorer.demand();
        this.current = current;
        this.cost = scorer.cost();
        this.interval = scorer.context().replanInterval();
        this.tokenBytes = scorer.context().shape().tokenBytes();
        int ep = gt.ep();
        this.mean = (demand.allTokens() + ep - 1) / ep;
        this.base = new long[ep];
        this.recv = new long[ep * 4];
        this.scratch = new long[ep * 4];
        for (int e = 0; e < demand.experts(); e++) {
            if (current.copies(e) == 1) {
                int g = current.copyGpu(current.copyStart(e));
                base[g] += demand.total(e);
                addColumn(e, g, 1, recv);
            }
        }
    }

    /**
     * At most the predicted seconds over the interval of the plan in use with {@code op} applied, one-off copies
     * included; negative infinity when the change is one this bound does not cover (it would leave an expert without
     * a copy).
     */
    double seconds(SlotChange op) {
        int ep = gt.ep();
        int g = op.gpu();
        int a = op.removed();
        int b = op.added();
        // a loses its copy on g: with one copy left, that copy's GPU takes all of a.
        int aGpu = -1;
        if (a >= 0) {
            int k = current.copies(a);
            if (k <= 1) {
                return Double.NEGATIVE_INFINITY;
            }
            if (k == 2) {
                int first = current.copyStart(a);
                aGpu = current.copyGpu(first) == g ? current.copyGpu(first + 1) : current.copyGpu(first);
            }
        }
        // b gains a copy on g: a single-copy b stops being forced onto its one GPU.
        int bGpu = b >= 0 && current.copies(b) == 1 ? current.copyGpu(current.copyStart(b)) : -1;
        long max = mean;
        for (int x = 0; x < ep; x++) {
            long load = base[x] + (x == aGpu ? demand.total(a) : 0) - (x == bGpu ? demand.total(b) : 0);
            max = Math.max(max, load);
        }
        long[] r = recv;
        if (aGpu >= 0 || bGpu >= 0) {
            System.arraycopy(recv, 0, scratch, 0, ep * 4);
            r = scratch;
            if (aGpu >= 0) {
                addColumn(a, aGpu, 1, r);
            }
            if (bGpu >= 0) {
                addColumn(b, bGpu, -1, r);
            }
        }
        Hardware hw = gt.hardware();
        double nvMax = 0;
        double nicMax = 0;
        double xrMax = 0;
        for (int i = 0; i < ep * 4; i += 4) {
            nvMax = Math.max(nvMax, r[i + 1] * tokenBytes);
            nicMax = Math.max(nicMax, r[i + 2] * tokenBytes + r[i + 3] * tokenBytes);
            xrMax = Math.max(xrMax, r[i + 3] * tokenBytes);
        }
        double link = Math.max(nvMax / hw.bytesPerSecond(LinkClass.NVLINK),
                Math.max(nicMax / hw.bytesPerSecond(LinkClass.NETWORK), xrMax / hw.bytesPerSecond(LinkClass.CROSS_RACK)));
        return (cost.computeSeconds(max, hw) + CostModel.ALL_TO_ALLS_PER_LAYER * link) * interval;
    }

    /** Adds {@code sign} × expert e's tokens as received on GPU {@code at}, by link class, into {@code into}. */
    private void addColumn(int e, int at, long sign, long[] into) {
        int ep = gt.ep();
        int experts = demand.experts();
        long[] counts = demand.counts();
        for (int s = 0; s < ep; s++) {
            into[at * 4 + gt.linkClassAt(s * ep + at)] += sign * counts[s * experts + e];
        }
    }
}
