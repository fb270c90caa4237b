package dev.ballast.planner.ballast;

import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.StaticLayout;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.ToDoubleFunction;

/**
 * A local search over one layer's placements that scores each by its best routing
 * ({@link dev.ballast.planner.route.RoutingLp}): what a placement search can reach when every rank routes tokens by
 * that routing instead of the quota rule (a planned split, docs/quota-rule.md; docs/benchmarks-exact.md). From a
 * start, each pass weighs every neighbour and takes the best, until none is faster: a replica replaced by an expert its
 * GPU does not hold, moved to another GPU's free slot, traded with another GPU's replica, dropped, or a free slot
 * filled. Homes never move. Deterministic: neighbours are weighed in a fixed order and only a strictly faster one
 * replaces the best so far.
 */
public final class RoutedSearch {
    /** The placement reached, its best-routing layer time, the passes that improved it and the LPs solved. */
    public record Result(LayerPlacement placement, double seconds, int passes, long solves) {
    }

    /** Random moves per kick of {@link #kicked}: four took top-1 layer 1 of exact16 out of its descent's end. */
    static final int KICK_MOVES = 4;

    private RoutedSearch() {
    }

    /** Descends from {@code start} (every home held, at most {@code slotsPerGpu} experts per GPU). */
    public static Result descend(ToDoubleFunction<LayerPlacement> routing, LayerPlacement start, int slotsPerGpu) {
        LayerPlacement p = start;
        double now = routing.applyAsDouble(p);
        long solves = 1;
        int passes = 0;
        while (true) {
            LayerPlacement best = null;
            double bestSeconds = now * (1 - 1e-9);
            for (LayerPlacement q : neighbours(p, slotsPerGpu)) {
                double s = routing.applyAsDouble(q);
                solves++;
                if (s < bestSeconds) {
                    best = q;
                    bestSeconds = s;
                }
            }
            if (best == null) {
                return new Result(p, now, passes, solves);
            }
            p = best;
            now = bestSeconds;
            passes++;
        }
    }

    /**
     * Iterated descent from {@code from} (a {@link #descend} result): {@code kicks} times, {@link #KICK_MOVES} random
     * one-move changes of the best placement so far (seeded by {@code seed}), then a descent; a faster end becomes the
     * best. A single descent stops where no one move gains; the kicks let it leave such a placement. The result's
     * {@code passes} counts the kicks that found a faster placement; {@code solves} includes {@code from}'s.
     */
    public static Result kicked(ToDoubleFunction<LayerPlacement> routing, Result from, int slotsPerGpu, int kicks, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Result best = from;
        long solves = from.solves();
        int gains = 0;
        for (int k = 0; k < kicks; k++) {
            LayerPlacement q = best.placement();
            for (int m = 0; m < KICK_MOVES; m++) {
                List<LayerPlacement> next = neighbours(q, slotsPerGpu);
                if (next.isEmpty()) {
                    break;
                }
                q = next.get(rnd.nextInt(next.size()));
            }
            Result r = descend(routing, q, slotsPerGpu);
            solves += r.solves();
            if (r.seconds() < best.seconds() * (1 - 1e-9)) {
                best = r;
                gains++;
            }
        }
        return new Result(best.placement(), best.seconds(), gains, solves);
    }

    /** Every placement one move from {@code p}, in a fixed order. */
    public static List<LayerPlacement> neighbours(LayerPlacement p, int slots) {
        int ep = p.gpus();
        int experts = p.experts();
        int[][] l = new int[ep][];
        for (int g = 0; g < ep; g++) {
            l[g] = p.expertsOn(g);
        }
        List<int[][]> out = new ArrayList<>();
        for (int g = 0; g < ep; g++) {
            for (int r : l[g]) {
                if (StaticLayout.home(r, ep, experts) == g) {
                    continue;
                }
                for (int e = 0; e < experts; e++) { // r replaced by e
                    if (!p.holds(g, e)) {
                        out.add(set(l, g, SlotChanges.replace(l[g], r, e)));
                    }
                }
                for (int h = 0; h < ep; h++) {
                    if (h == g || p.holds(h, r)) {
                        continue;
                    }
                    if (l[h].length < slots) { // r moved to h's free slot
                        out.add(set(set(l, g, SlotChanges.replace(l[g], r, -1)), h,
                                SlotChanges.replace(l[h], -1, r)));
                    }
                    if (h < g) {
                        continue;
                    }
                    for (int r2 : l[h]) { // r traded for h's replica r2
                        if (StaticLayout.home(r2, ep, experts) != h && !p.holds(g, r2)) {
                            out.add(set(set(l, g, SlotChanges.replace(l[g], r, r2)), h,
                                    SlotChanges.replace(l[h], r2, r)));
                        }
                    }
                }
                out.add(set(l, g, SlotChanges.replace(l[g], r, -1))); // r dropped
            }
            for (int e = 0; e < experts && l[g].length < slots; e++) { // a free slot filled
                if (!p.holds(g, e)) {
                    out.add(set(l, g, SlotChanges.replace(l[g], -1, e)));
                }
            }
        }
        List<LayerPlacement> placements = new ArrayList<>(out.size());
        for (int[][] q : out) {
            placements.add(LayerPlacement.ofAscending(experts, q));
        }
        return placements;
    }

    /** A copy of {@code lists} with GPU {@code g}'s list replaced. */
    private static int[][] set(int[][] lists, int g, int[] list) {
        int[][] q = lists.clone();
        q[g] = list;
        return q;
    }
}
