package dev.ballast.planner.ballast;

import dev.ballast.planner.cost.LayerCost;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.quota.PlacementSearch;

/**
 * Fills the slots the chosen placement leaves empty with node-local replicas, one at a time, each the one that most
 * reduces the predicted layer time. The greedy steps rank replicas by network tokens saved against a multiple of
 * their parameter bytes ({@link BalanceThenLocal#LOCAL_GAIN}) and keep a slot per node for the top-up; where the
 * layer's compute hides a replica's refresh and gradient traffic, that leaves slots empty that would keep tokens off
 * the network. This step asks the cost model itself (quota-rule routing, overlap rule, the rule's own CPU time), so
 * a replica goes in only when it pays.
 */
public final class LocalFill {
    /**
     * Candidates weighed exactly per added replica: the (expert, node) pairs whose node sends the expert the most
     * tokens and holds no copy of it. Each costs one run of the quota rule; the best pair is almost always among the
     * first few.
     */
    static final int CANDIDATES = 8;

    /**
     * Layers whose EP² × experts exceeds this are not filled (nor the extra candidates weighed). Every candidate weighed
     * is a run of the quota rule and the cost model over the layer's EP × experts counts, and a fill weighs up to
     * {@link #CANDIDATES} per replica added, of which there are up to EP × redundant slots: its work grows as EP² ×
     * experts where the rest of the layer's plan grows as EP × experts. Measured (docs/planner.md, "Structure of the
     * ballast planner"): on 16 ranks × 256 experts (2x8 zipf rows) it raised the fraction of ideal by up to 0.14 at about
     * twice the plan time; on 64 × 256 (the whole-model input) 0.874 → 0.895 for 4–5 times the plan time; on 64 × 64
     * (the load benchmark's balancer world, OLMoE 8x8) +0.001 for 5 times. So 16² × 256 is the bound.
     */
    public static final long MAX_WORK = 16L * 16 * 256;

    /** Whether {@link #fill} runs on layers of {@code gt} with {@code experts} experts (see {@link #MAX_WORK}). */
    public static boolean applies(GroupTopology gt, int experts) {
        return (long) gt.ep() * gt.ep() * experts <= MAX_WORK;
    }

    private LocalFill() {
    }

    /**
     * {@code p} with replicas added in free slots while one pays: each round weighs the {@link #CANDIDATES} best
     * (expert, node) pairs (node-local tokens of an expert the node holds no copy of; a copy on the node's least
     * loaded GPU, by the rule's loads, with a free slot) and keeps the one with the lowest predicted steady-state time,
     * if it is lower than now, or equal with fewer inter-node token bytes (all-to-alls last as long as the busiest
     * GPU, so one replica may not shorten them alone), and its quota-rule max/mean stays within
     * {@link CandidateSelector#BALANCE_CAP} (or no worse than now). Returns {@code p} itself when nothing paid.
     */
    public static LayerPlacement fill(LayerScorer scorer, LayerPlacement p) {
        GroupTopology gt = scorer.group();
        LayerDemand d = scorer.demand();
        int slots = scorer.context().redundantSlots();
        int ep = gt.ep();
        int experts = p.experts();
        int nc = gt.nodeCount();
        int[][] lists = new int[ep][];
        int[] free = new int[ep];
        int freeAll = 0;
        for (int g = 0; g < ep; g++) {
            lists[g] = p.expertsOn(g);
            free[g] = slots - p.nonHomeCopies(g);
            freeAll += Math.max(0, free[g]);
        }
        if (freeAll == 0) {
            return p;
        }
        LayerCost now = scorer.steady(p);
        double capLoad = Math.max(CandidateSelector.BALANCE_CAP, scorer.imbalance(now.maxTokens()));
        long[] bestValue = new long[CANDIDATES];
        int[] bestPair = new int[CANDIDATES];
        while (freeAll > 0) {
            // The CANDIDATES pairs with the most node-local tokens, ties to the lower expert, then node (insertion).
            int n = 0;
            for (int e = 0; e < experts; e++) {
                for (int x = 0; x < nc; x++) {
                    long v = d.nodeTokens(x, e);
                    if (v <= 0 || n == CANDIDATES && v <= bestValue[n - 1] || !hasRoom(gt, free, x)
                            || nodeHolds(gt, p, x, e)) {
                        continue;
                    }
                    int i = n < CANDIDATES ? n++ : n - 1;
                    while (i > 0 && bestValue[i - 1] < v) {
                        bestValue[i] = bestValue[i - 1];
                        bestPair[i] = bestPair[i - 1];
                        i--;
                    }
                    bestValue[i] = v;
                    bestPair[i] = e * nc + x;
                }
            }
            if (n == 0) {
                break;
            }
            long[] load = scorer.probe(p, Long.MAX_VALUE).gpuLoad();
            LayerPlacement chosen = null;
            LayerCost chosenCost = null;
            int chosenGpu = -1;
            for (int i = 0; i < n; i++) {
                int e = bestPair[i] / nc;
                int x = bestPair[i] % nc;
                int t = -1;
                for (int k = gt.nodeMemberStart(x); k < gt.nodeMemberStart(x + 1); k++) {
                    int g = gt.nodeMember(k);
                    if (free[g] > 0 && (t < 0 || load[g] < load[t])) {
                        t = g;
                    }
                }
                int[] before = lists[t];
                lists[t] = SlotChanges.replace(before, -1, e);
                LayerPlacement q = LayerPlacement.of(experts, lists);
                lists[t] = before;
                LayerCost c = scorer.steady(q);
                if (scorer.imbalance(c.maxTokens()) <= capLoad && better(c, chosenCost == null ? now : chosenCost)) {
                    chosen = q;
                    chosenCost = c;
                    chosenGpu = t;
                }
            }
            if (chosen == null) {
                break;
            }
            p = chosen;
            now = chosenCost;
            lists[chosenGpu] = p.expertsOn(chosenGpu);
            free[chosenGpu]--;
            freeAll--;
        }
        return p;
    }

    /** Lower predicted time, or the same time (to a part in 10^9) with fewer inter-node token bytes. */
    private static boolean better(LayerCost c, LayerCost than) {
        double eps = than.totalSec() * 1e-9;
        return c.totalSec() < than.totalSec() - eps
                || c.totalSec() <= than.totalSec() + eps && c.interNodeTokenBytes() < than.interNodeTokenBytes();
    }

    private static boolean hasRoom(GroupTopology gt, int[] free, int x) {
        for (int k = gt.nodeMemberStart(x); k < gt.nodeMemberStart(x + 1); k++) {
            if (free[gt.nodeMember(k)] > 0) {
                return true;
            }
        }
        return false;
    }

    private static boolean nodeHolds(GroupTopology gt, LayerPlacement p, int x, int e) {
        for (int k = gt.nodeMemberStart(x); k < gt.nodeMemberStart(x + 1); k++) {
            if (p.holds(gt.nodeMember(k), e)) {
                return true;
            }
        }
        return false;
    }
}
