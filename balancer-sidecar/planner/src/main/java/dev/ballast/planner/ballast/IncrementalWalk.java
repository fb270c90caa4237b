package dev.ballast.planner.ballast;

import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;

import java.util.ArrayList;
import java.util.Arrays;
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
     * Price of one new copy, as a fraction of one GPU's share of the plan in use's predicted time over the next
     * interval (that time over the group's EP): on top of its one-off copy (which the cost model mostly hides under
     * compute), each new copy must win this much. It absorbs prediction noise, so re-plans on drifting loads move only
     * copies that clearly pay off. Per GPU because a re-plan's changes grow with the group: a fixed fraction of the
     * layer's time per copy (0.2 % until December 5; this is 1.2 % at EP 16, 0.3 % at EP 64, 0.075 % at EP 256) let
     * EP-16 re-plans move 11-20 % of from-scratch's bytes and held EP-256 ones far from balance (docs/planner.md,
     * "Incremental re-plans at other scales"). 0.192 is a fit: the docs suite's drift rows at EP 16 and 64 stay within
     * 10 % of from-scratch's bytes with it, not at two thirds of it (0.128).
     */
    public static final double HYSTERESIS = 0.192;

    private IncrementalWalk() {
    }

    /** The price of one new copy ({@link #HYSTERESIS}) for a plan in use predicted at {@code keep} seconds. */
    public static double price(double keep, int ep) {
        return HYSTERESIS * keep / ep;
    }

    /** How many changes of an order to apply, and the score of applying them. */
    private record Prefix(int size, double score) {
    }

    /** A change and its rank: the predicted seconds of applying it alone, or a lower bound on them. */
    private record Ranked(SlotChange change, double alone) {
    }

    /**
     * For each target, the slot changes from {@code current} to it ({@link SlotChanges#between}), ordered by what each
     * would score alone, lowest first; the prefixes of that order are candidates, scored over the next interval with
     * their one-off copies plus the {@link #price} of each new copy. The cheapest found wins.
     * In layers where a run of the quota rule is cheap ({@link LocalFill#applies}) each change is scored exactly
     * (unless its {@link ChangeBound} shows it cannot gain); elsewhere its {@link ChangeBound} ranks it.
     */
    public static LayerPlacement towards(LayerScorer scorer, LayerPlacement current, LayerPlacement... targets) {
        LayerPlacement chargeFrom = scorer.context().mode() == Mode.REPLICATE ? current : null;
        double keep = scorer.seconds(current, chargeFrom);
        // In fssdp mode a changed materialization is just a different gather (nothing moves beyond what every step
        // gathers anyway), so new copies are not priced there.
        double price = chargeFrom == null ? 0 : price(Math.abs(keep), scorer.group().ep());
        boolean exact = LocalFill.applies(scorer.group(), current.experts());
        LayerPlacement pick = current;
        double pickScore = keep;
        ChangeBound bound = new ChangeBound(scorer, current);
        double tolerance = 1e-9 * Math.abs(keep);
        // Targets often share prefixes (the best change alone, or a whole target): each placement is scored once.
        Map<LayerPlacement, Double> scored = new HashMap<>();
        for (LayerPlacement target : targets) {
            if (target.equals(current)) {
                continue;
            }
            // Exact single scores rank best where they are cheap; in large layers the bound ranks a change in O(EP)
            // where an exact score takes a run of the rule, about as well, at under half the balancer's re-plan time
            // (docs/planner.md, step 4, has the measurements). Ties keep the node-local order; a change the bound
            // does not cover (it leaves an expert without a copy alone) comes last, as its infinite score alone
            // would put it.
            List<Ranked> ranked = new ArrayList<>();
            for (SlotChange op : SlotChanges.between(scorer.group(), scorer.demand(), current, target)) {
                double floor = bound.seconds(op);
                if (floor == Double.NEGATIVE_INFINITY) {
                    floor = Double.POSITIVE_INFINITY;
                }
                if (!exact) {
                    ranked.add(new Ranked(op, floor));
                    continue;
                }
                // A bound at keep or above settles that the change cannot gain: no exact score. Within a part in 10^9
                // of keep it counts as no change (the bound and the exact time sum in different orders).
                if (floor >= keep - tolerance) {
                    ranked.add(new Ranked(op, floor <= keep + tolerance ? keep : floor));
                    continue;
                }
                LayerPlacement alone = SlotChanges.applyFirst(current, List.of(op), 1);
                ranked.add(new Ranked(op, scored.computeIfAbsent(alone, q -> scorer.seconds(q, chargeFrom))));
            }
            ranked.sort((x, y) -> Double.compare(x.alone(), y.alone()));
            List<SlotChange> ops = new ArrayList<>(ranked.size());
            for (Ranked x : ranked) {
                ops.add(x.change());
            }
            Prefix best = cheapestPrefix(scorer, current, ops, chargeFrom, keep, price, scored, exact, pickScore);
            if (best.size() > 0 && best.score() < pickScore) {
                pick = SlotChanges.applyFirst(current, ops, best.size());
                pickScore = best.score();
            }
        }
        return pick;
    }

    /**
     * The cheapest prefix size of {@code ops}: sizes 1, 2, 4, ... and all (the score falls while the big gains come in
     * and rises as the priced copies pile up), then, when {@code refine}, halving steps around the best so far: about
     * 3 log2(changes) scores instead of one per prefix. Size 0 (keeping {@code current}, scored {@code keep}) when no
     * prefix beats it.
     * <p>
     * Without {@code refine} the sizes are fixed in advance, so a size whose {@link LayerScorer#floor} plus price is
     * already at or above the best score so far, or at or above {@code pickScore} (what an earlier target reached), can
     * neither become the best nor make this target win: it is not scored exactly, and the caller's choice is the one
     * every size scored would give. Such a size counts as infinite: it is never the best.
     */
    private static Prefix cheapestPrefix(LayerScorer scorer, LayerPlacement current, List<SlotChange> ops,
                                         LayerPlacement chargeFrom, double keep, double price,
                                         Map<LayerPlacement, Double> scored, boolean refine, double pickScore) {
        int n = ops.size();
        double[] f = new double[n + 1];
        Arrays.fill(f, Double.NaN);
        f[0] = keep;
        int best = 0;
        for (int k = 1; k <= n; k = k == n ? n + 1 : Math.min(n, 2 * k)) {
            f[k] = prefixScore(scorer, current, ops, k, chargeFrom, price, scored,
                    refine ? Double.POSITIVE_INFINITY : Math.min(f[best], pickScore));
            if (f[k] < f[best]) {
                best = k;
            }
        }
        for (int d = refine ? Integer.highestOneBit(Math.max(1, best / 2)) : 0; d >= 1; d /= 2) {
            int around = best;
            for (int k : new int[] {around - d, around + d}) {
                if (k >= 1 && k <= n && Double.isNaN(f[k])) {
                    f[k] = prefixScore(scorer, current, ops, k, chargeFrom, price, scored, Double.POSITIVE_INFINITY);
                    if (f[k] < f[best] || f[k] == f[best] && k < best) {
                        best = k;
                    }
                }
            }
        }
        return new Prefix(best, f[best]);
    }

    /**
     * The predicted seconds of the first {@code k} changes applied, plus the price of the new copies among them; or
     * infinity, unscored, when the placement's {@link LayerScorer#floor} plus that price is already at least
     * {@code cutoff} (so is the score: the size cannot win).
     */
    private static double prefixScore(LayerScorer scorer, LayerPlacement current, List<SlotChange> ops, int k,
                                      LayerPlacement chargeFrom, double price, Map<LayerPlacement, Double> scored,
                                      double cutoff) {
        int newCopies = 0;
        for (int i = 0; i < k; i++) {
            newCopies += ops.get(i).addsCopy() ? 1 : 0;
        }
        LayerPlacement p = SlotChanges.applyFirst(current, ops, k);
        Double known = scored.get(p);
        if (known == null) {
            if (cutoff < Double.POSITIVE_INFINITY && scorer.floor(p) + newCopies * price >= cutoff) {
                return Double.POSITIVE_INFINITY;
            }
            known = scorer.seconds(p, chargeFrom);
            scored.put(p, known);
        }
        return known + newCopies * price;
    }
}
