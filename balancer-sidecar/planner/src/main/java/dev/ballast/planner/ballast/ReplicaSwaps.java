package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.StaticLayout;

/**
 * A local search over the chosen placement of a small layer: replace one replica by a copy of an expert its GPU does
 * not hold, the swap that most shortens the predicted layer time without leaving the quota rule's balance, and repeat
 * until no swap gains. The greedy steps before it place each replica once, by proxies (tokens saved, load shed) or one
 * at a time ({@link LocalFill}); a swap weighs the whole layer with the cost model, so it can undo an early choice
 * that a later one made worse. Every candidate is a run of the quota rule and the cost model, so it runs only where
 * that work is small ({@link #applies}).
 */
public final class ReplicaSwaps {
    /**
     * Layers whose (EP × redundant slots) × experts × (EP × experts) exceeds this are not searched: a pass weighs every
     * (replica, expert) pair, each over the layer's EP × experts counts. Measured (docs/planner.md, "Structure of the
     * ballast planner"): Mixtral at 2x4 (2^13) and the 16-expert layers at 2x4 (2^15) gain 0.03-0.1 of the bound for
     * about twice their plan time; a 2x8 layer of 64 experts would weigh 2^21 per pass.
     */
    public static final long MAX_WORK = 1L << 16;

    /** Passes at most: each applies one swap, the best of its pass. */
    static final int MAX_PASSES = 32;

    private ReplicaSwaps() {
    }

    /** Whether {@link #improve} runs on layers of {@code gt} with {@code experts} experts and {@code slots} per GPU. */
    public static boolean applies(GroupTopology gt, int experts, int slots) {
        long ep = gt.ep();
        return ep * slots * experts * ep * experts <= MAX_WORK;
    }

    /**
     * {@code p} with its replicas swapped while a swap shortens the predicted time (over the interval, nothing charged
     * for the copies: the layer's placement is being chosen from scratch) and keeps the rule's max/mean within
     * {@link CandidateSelector#BALANCE_CAP}, or within {@code p}'s own if that is above it. Homes never move.
     */
    public static LayerPlacement improve(LayerScorer scorer, LayerPlacement p) {
        int ep = p.gpus();
        int experts = p.experts();
        double cap = Math.max(CandidateSelector.BALANCE_CAP, scorer.imbalance(scorer.maxLoad(p)));
        double now = scorer.seconds(p, null);
        int[][] lists = new int[ep][];
        for (int pass = 0; pass < MAX_PASSES; pass++) {
            for (int g = 0; g < ep; g++) {
                lists[g] = p.expertsOn(g);
            }
            LayerPlacement best = null;
            // Strictly faster by more than rounding (the scores sum in different orders).
            double bestSeconds = now - 1e-9 * Math.abs(now);
            for (int g = 0; g < ep; g++) {
                int[] before = lists[g];
                for (int r : before) {
                    if (StaticLayout.home(r, ep, experts) == g) {
                        continue;
                    }
                    for (int e = 0; e < experts; e++) {
                        if (p.holds(g, e)) {
                            continue;
                        }
                        lists[g] = SlotChanges.replace(before, r, e);
                        // The placement keeps the array it is given, so it gets a copy of the (ascending) lists.
                        LayerPlacement q = LayerPlacement.ofAscending(experts, lists.clone());
                        double s = scorer.seconds(q, null);
                        if (s < bestSeconds && scorer.imbalance(scorer.maxLoad(q)) <= cap) {
                            best = q;
                            bestSeconds = s;
                        }
                    }
                }
                lists[g] = before;
            }
            if (best == null) {
                break;
            }
            p = best;
            now = bestSeconds;
        }
        return p;
    }
}
