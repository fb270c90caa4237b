package dev.ballast.planner.ballast;

import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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

    /**
     * A change, its own predicted gain (alone on top of the plan in use) and the exact score that gain came from (NaN
     * when a bound settled it).
     */
    private record Gain(SlotChange change, double gain, double score) {
    }

    /** How many changes of an order to apply, and the score of applying them. */
    private record Prefix(int size, double score) {
    }

    /**
     * For each target, the slot changes from {@code current} to it ({@link SlotChanges#between}), ordered by each one's
     * own predicted gain (none, without an exact score, when a {@link ChangeBound} shows it cannot gain); the prefixes
     * of that order are candidates, scored over the next interval with their one-off copies plus {@link #HYSTERESIS}
     * of the current plan's time per new copy. The cheapest found wins.
     */
    public static LayerPlacement towards(LayerScorer scorer, LayerPlacement current, LayerPlacement... targets) {
        LayerPlacement chargeFrom = scorer.context().mode() == Mode.REPLICATE ? current : null;
        double keep = scorer.seconds(current, chargeFrom);
        // In fssdp mode a changed materialization is just a different gather (nothing moves beyond what every step
        // gathers anyway), so new copies are not priced there.
        double price = chargeFrom == null ? 0 : HYSTERESIS * Math.abs(keep);
        int ep = scorer.group().ep();
        LayerPlacement pick = current;
        double pickScore = keep;
        ChangeBound bound = new ChangeBound(scorer, current);
        double tolerance = 1e-9 * Math.abs(keep);
        for (LayerPlacement target : targets) {
            if (target.equals(current)) {
                continue;
            }
            // Order the changes by their own predicted gain, best first; ties keep the node-local order.
            List<Gain> gains = new ArrayList<>();
            int[][] lists = new int[ep][];
            for (int g = 0; g < ep; g++) {
                lists[g] = current.expertsOn(g);
            }
            for (SlotChange op : SlotChanges.between(scorer.group(), scorer.demand(), current, target)) {
                // A change whose bound already reaches keep cannot gain: it needs no exact score. Within a part in
                // 10^9 of keep it counts as no change (the bound and the exact time sum in different orders).
                double floor = bound.seconds(op);
                if (floor >= keep - tolerance) {
                    gains.add(new Gain(op, floor <= keep + tolerance ? 0 : keep - floor, Double.NaN));
                    continue;
                }
                int[] before = lists[op.gpu()];
                lists[op.gpu()] = SlotChanges.replace(before, op.removed(), op.added());
                // The placement keeps the array it is given, so it gets a copy of the (ascending) lists.
                double sc = scorer.seconds(LayerPlacement.ofAscending(current.experts(), lists.clone()), chargeFrom);
                lists[op.gpu()] = before;
                gains.add(new Gain(op, keep - sc, sc));
            }
            gains.sort((x, y) -> Double.compare(y.gain(), x.gain()));
            List<SlotChange> ops = new ArrayList<>(gains.size());
            for (Gain x : gains) {
                ops.add(x.change());
            }
            // The first prefix is the best change alone, scored already when no bound settled it.
            double first = gains.isEmpty() ? Double.NaN
                    : gains.get(0).score() + (gains.get(0).change().addsCopy() ? price : 0);
            Prefix best = cheapestPrefix(scorer, current, ops, chargeFrom, keep, price, first);
            if (best.size() > 0 && best.score() < pickScore) {
                pick = SlotChanges.applyFirst(current, ops, best.size());
                pickScore = best.score();
            }
        }
        return pick;
    }

    /**
     * The cheapest prefix size of {@code ops}: sizes 1, 2, 4, ... and all, then halving steps around the best so far
     * (the score falls while the big gains come in and rises as the priced copies pile up), about 3 log2(changes)
     * scores instead of one per prefix. Size 0 (keeping {@code current}, scored {@code keep}) when no prefix beats it.
     */
    private static Prefix cheapestPrefix(LayerScorer scorer, LayerPlacement current, List<SlotChange> ops,
                                      LayerPlacement chargeFrom, double keep, double price, double first) {
        int n = ops.size();
        double[] f = new double[n + 1];
        Arrays.fill(f, Double.NaN);
        f[0] = keep;
        if (n > 0) {
            f[1] = first;
        }
        int best = 0;
        for (int k = 1; k <= n; k = k == n ? n + 1 : Math.min(n, 2 * k)) {
            if (k > 1 || Double.isNaN(f[k])) {
                f[k] = prefixScore(scorer, current, ops, k, chargeFrom, price);
            }
            if (f[k] < f[best]) {
                best = k;
            }
        }
        for (int d = Integer.highestOneBit(Math.max(1, best / 2)); d >= 1; d /= 2) {
            int around = best;
            for (int k : new int[] {around - d, around + d}) {
                if (k >= 1 && k <= n && Double.isNaN(f[k])) {
                    f[k] = prefixScore(scorer, current, ops, k, chargeFrom, price);
                    if (f[k] < f[best] || f[k] == f[best] && k < best) {
                        best = k;
                    }
                }
            }
        }
        return new Prefix(best, f[best]);
    }

    /** The predicted seconds of the first {@code k} changes applied, plus the price of the new copies among them. */
    private static double prefixScore(LayerScorer scorer, LayerPlacement current, List<SlotChange> ops, int k,
                                      LayerPlacement chargeFrom, double price) {
        int newCopies = 0;
        for (int i = 0; i < k; i++) {
            newCopies += ops.get(i).addsCopy() ? 1 : 0;
        }
        return scorer.seconds(SlotChanges.applyFirst(current, ops, k), chargeFrom) + newCopies * price;
    }
}
