package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.quota.PlacementSearch;

/**
 * Tops a placement up for balance with replicas in free slots. Shedding balances planned loads, but the quota rule's
 * greedy (near copies first) does not always reproduce them; this closes the gap with the rule itself in the loop.
 */
public final class TopUp {
    private TopUp() {
    }

    /**
     * {@code p} (whose rule-busiest GPU carries {@code maxLoad}) with replicas added in free slots, one at a time, while
     * the quota rule's busiest GPU is above {@link CandidateSelector#BALANCE_CAP} × mean: each new copy is of the
     * expert the rule's fill cannot place at that level (or the heaviest single-copy expert of a GPU whose forced load
     * alone exceeds it), on the least-loaded GPU with a free slot of the node that sends that expert the most tokens,
     * else on the least-loaded GPU with a free slot anywhere; it is kept only if the rule gets further (busiest GPU
     * lighter, or that expert now placed). Returns {@code p} itself when nothing was added.
     */
    public static LayerPlacement topUp(LayerScorer scorer, LayerPlacement p, long maxLoad) {
        GroupTopology gt = scorer.group();
        LayerDemand d = scorer.demand();
        int slots = scorer.context().redundantSlots();
        int ep = gt.ep();
        int experts = p.experts();
        int nc = gt.nodeCount();
        long aim = (long) Math.floor(CandidateSelector.BALANCE_CAP * d.allTokens() / ep);
        int[][] lists = new int[ep][];
        int[] free = new int[ep];
        for (int g = 0; g < ep; g++) {
            lists[g] = p.expertsOn(g);
            free[g] = slots - p.nonHomeCopies(g);
        }
        int guard = slots * ep;
        PlacementSearch.Probe now = maxLoad > aim ? scorer.probe(p, aim) : null;
        while (now != null && now.maxLoad() > aim && guard-- > 0) {
            int u = now.unplacedAtAim();
            long[] load = now.gpuLoad();
            int e = u;
            if (u >= experts) {
                // GPU u - experts is over the aim on its single-copy experts alone: replicate the heaviest of them.
                int g = u - experts;
                e = -1;
                for (int x : lists[g]) {
                    if (p.copies(x) == 1 && (e < 0 || d.total(x) > d.total(e))) {
                        e = x;
                    }
                }
            }
            if (e < 0) {
                break;
            }
            int bestNode = -1;
            for (int n = 0; n < nc; n++) {
                if (bestNode < 0 || d.nodeTokens(n, e) > d.nodeTokens(bestNode, e)) {
                    bestNode = n;
                }
            }
            int nearT = -1;
            int anyT = -1;
            for (int g = 0; g < ep; g++) {
                if (free[g] <= 0 || p.holds(g, e)) {
                    continue;
                }
                if (anyT < 0 || load[g] < load[anyT]) {
                    anyT = g;
                }
                if (gt.nodeIndex(g) == bestNode && (nearT < 0 || load[g] < load[nearT])) {
                    nearT = g;
                }
            }
            boolean accepted = false;
            for (int t : new int[] {nearT, anyT}) {
                if (t < 0 || accepted) {
                    continue;
                }
                int[] before = lists[t];
                lists[t] = SlotChanges.replace(before, -1, e);
                // Every list ascends (p's own, or one with e added where it was not), so they are taken as they are; the
                // outer array is copied since this loop goes on changing it.
                LayerPlacement p2 = LayerPlacement.ofAscending(experts, lists.clone());
                PlacementSearch.Probe next = scorer.probe(p2, aim);
                // Progress: the busiest GPU got lighter, or (no heavier) the rule now places this expert at the aim.
                if (next.maxLoad() < now.maxLoad() || next.maxLoad() == now.maxLoad() && next.unplacedAtAim() != u) {
                    p = p2;
                    now = next;
                    free[t]--;
                    accepted = true;
                } else {
                    lists[t] = before;
                }
            }
            if (!accepted) {
                break;
            }
        }
        return p;
    }
}
