package dev.ballast.planner.ballast;

import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The incremental re-plan of one layer: walk from the plan in use towards target placements and stop where the
 * predicted interval time, one-off copies included, plus a price per new copy is lowest. Keeping the plan in use is the
 * empty walk, so a set of moves is made only when its predicted gain over the interval beats its cost, copy by copy on
 * average, and prediction noise does not cause churn.
 */
public final class IncrementalWalk {
    /**
     * Price of one new copy, as a fraction of the plan in use's predicted time over the next interval: on top of its
     * one-off copy (which the cost model mostly hides under compute), each new copy must win this much. It absorbs
     * prediction noise, so re-plans on drifting loads move only copies that clearly pay off.
     */
    public static final double HYSTERESIS = 0.002;

    private IncrementalWalk() {
    }

    /** How many changes of an order to apply, and the score of applying them. */
    private record Prefix(int size, double score) {
    }

    /** A change and the {@link ChangeBound} of applying it alone (positive infinity: not covered by the bound). */
    private record Ranked(SlotChange change, double floor) {
    }

    /**
     * For each target, the slot changes from {@code current} to it ({@link SlotChanges#between}), ordered by their
     * {@link ChangeBound}, lowest first (the changes that could gain most); the prefixes of that order are candidates,
     * scored over the next interval with their one-off copies plus {@link #HYSTERESIS} of the current plan's time per
     * new copy. The cheapest found wins.
     */
    public static LayerPlacement towards(LayerScorer scorer, LayerPlacement current, LayerPlacement... targets) {
        LayerPlacement chargeFrom = scorer.context().mode() == Mode.REPLICATE ? current : null;
        double keep = scorer.seconds(current, chargeFrom);
        // In fssdp mode a changed materialization is just a different gather (nothing moves beyond what every step
        // gathers anyway), so new copies are not priced there.
        double price = chargeFrom == null ? 0 : HYSTERESIS * Math.abs(keep);
        LayerPlacement pick = current;
        double pickScore = keep;
        ChangeBound bound = new ChangeBound(scorer, current);
        // Targets often share prefixes (the best change alone, or a whole target): each placement is scored once.
        Map<LayerPlacement, Double> scored = new HashMap<>();
        for (LayerPlacement target : targets) {
            if (target.equals(current)) {
                continue;
            }
            // The bound ranks the changes in O(EP) each where exact single scores took a run of the rule each, and
            // ranks as well: a change's exact gain alone says little about its gain within a prefix, where the copies
            // it pairs with (the slot another change frees, a second copy of the same hot expert) come in too. Ties
            // keep the node-local order; a change the bound does not cover (it leaves an expert without a copy
            // alone) comes last, as its infinite score alone would put it.
            List<Ranked> ranked = new ArrayList<>();
            for (SlotChange op : SlotChanges.between(scorer.group(), scorer.demand(), current, target)) {
                double floor = bound.seconds(op);
                ranked.add(new Ranked(op, floor == Double.NEGATIVE_INFINITY ? Double.POSITIVE_INFINITY : floor));
            }
            ranked.sort((x, y) -> Double.compare(x.floor(), y.floor()));
            List<SlotChange> ops = new ArrayList<>(ranked.size());
            for (Ranked x : ranked) {
                ops.add(x.change());
            }
            Prefix best = cheapestPrefix(scorer, current, ops, chargeFrom, keep, price, scored);
            if (best.size() > 0 && best.score() < pickScore) {
                pick = SlotChanges.applyFirst(current, ops, best.size());
                pickScore = best.score();
            }
        }
        return pick;
    }

    /**
     * The cheapest prefix size of {@code ops} among sizes 1, 2, 4, ... and all: the score falls while the big gains
     * come in and rises as the priced copies pile up, but not smoothly (a change that frees a slot costs until the
     * change that fills it comes in), so a finer search around the best size bought little for its scores. Size 0
     * (keeping {@code current}, scored {@code keep}) when no prefix beats it.
     */
    private static Prefix cheapestPrefix(LayerScorer scorer, LayerPlacement current, List<SlotChange> ops,
                                         LayerPlacement chargeFrom, double keep, double price,
                                         Map<LayerPlacement, Double> scored) {
        int n = ops.size();
        int best = 0;
        double bestScore = keep;
        for (int k = 1; k <= n; k = k == n ? n + 1 : Math.min(n, 2 * k)) {
            double f = prefixScore(scorer, current, ops, k, chargeFrom, price, scored);
            if (f < bestScore) {
                best = k;
                bestScore = f;
            }
        }
        return new Prefix(best, bestScore);
    }

    /** The predicted seconds of the first {@code k} changes applied, plus the price of the new copies among them. */
    private static double prefixScore(LayerScorer scorer, LayerPlacement current, List<SlotChange> ops, int k,
                                      LayerPlacement chargeFrom, double price, Map<LayerPlacement, Double> scored) {
        int newCopies = 0;
        for (int i = 0; i < k; i++) {
            newCopies += ops.get(i).addsCopy() ? 1 : 0;
        }
        LayerPlacement p = SlotChanges.applyFirst(current, ops, k);
        return scored.computeIfAbsent(p, q -> scorer.seconds(q, chargeFrom)) + newCopies * price;
    }
}
