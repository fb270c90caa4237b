package dev.ballast.planner.ballast;

import dev.ballast.planner.model.LayerPlacement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Chooses among from-scratch candidates for one layer, lexicographically: a candidate must be predicted no slower than
 * the static layout, and compute balance comes first (the quota rule's max/mean within {@link #BALANCE_CAP}, topped
 * up by {@link TopUp} when it is not). A candidate's predicted time is first bounded from above without routing its
 * tokens; the exact time is computed only when the bound and a lower bound on static's time cannot settle a
 * comparison. Static's exact time is likewise computed only when a comparison needs it.
 */
public final class CandidateSelector {
    /** Compute-only max/mean (busiest GPU over the mean, as the bench reports it) insisted on first. */
    public static final double BALANCE_CAP = 1.05;

    /**
     * Relative margin by which a time bound at a load above the busiest must clear static's floor to settle a candidate
     * ({@link #score}): far above the few units in the last place by which the bound can rise as the load falls.
     */
    static final double SETTLED_MARGIN = 1e-9;

    private final LayerScorer scorer;
    private final LayerPlacement staticP;
    /** Static's busiest GPU: all its experts are single-copy, so the rule's load of a GPU is its home load. */
    private final long staticMaxLoad;
    /**
     * A lower bound on static's score, from what its GPUs receive: a candidate predicted no slower than that is no
     * slower than static, so static's exact score is needed only for closer calls.
     */
    private final double staticFloor;
    private double staticSeconds = Double.NaN;
    /** The heaviest busiest load that is {@link Candidate#balanced}: balance is the busiest load at most this. */
    private final long balancedLoad;
    /** Every candidate weighed, in order: the fallback takes the fastest. */
    private final List<Candidate> considered = new ArrayList<>();

    public CandidateSelector(LayerScorer scorer, LayerPlacement staticP) {
        this.scorer = scorer;
        this.staticP = staticP;
        // A GPU's home load is all it receives, over every link class, when each expert runs at home.
        LayerDemand d = scorer.demand();
        long max = 0;
        for (int g = 0; g < scorer.group().ep(); g++) {
            max = Math.max(max, d.homeReceived(g, 0) + d.homeReceived(g, 1) + d.homeReceived(g, 2) + d.homeReceived(g, 3));
        }
        this.staticMaxLoad = max;
        this.staticFloor = scorer.staticFloor(max);
        this.balancedLoad = balancedLoad(scorer);
    }

    /**
     * The largest load whose {@link LayerScorer#imbalance} is within {@link #BALANCE_CAP} (-1: none; Long.MAX_VALUE for
     * an empty layer): imbalance never falls as the load grows, so a busiest load is balanced exactly when it is at most
     * this.
     */
    static long balancedLoad(LayerScorer scorer) {
        if (scorer.imbalance(Long.MAX_VALUE) <= BALANCE_CAP) {
            return Long.MAX_VALUE;
        }
        if (scorer.imbalance(0) > BALANCE_CAP) {
            return -1;
        }
        // Imbalance is maxLoad * ep / allTokens: start the bisection from a bracket around the cap's load instead of the
        // whole range (the same predicate, so the same answer, in a few steps instead of 63).
        long lo = 0;
        long hi = Long.MAX_VALUE;
        LayerDemand d = scorer.demand();
        double guess = Math.floor(BALANCE_CAP * d.allTokens() / scorer.group().ep());
        if (guess >= 2 && guess < (double) (Long.MAX_VALUE / 4)) {
            long below = (long) guess - 2;
            long above = (long) guess + 2;
            if (scorer.imbalance(below) <= BALANCE_CAP && scorer.imbalance(above) > BALANCE_CAP) {
                lo = below;
                hi = above;
            }
        }
        // Invariant: lo is balanced, hi is not.
        while (hi - lo > 1) {
            long mid = lo + (hi - lo) / 2;
            if (scorer.imbalance(mid) <= BALANCE_CAP) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** A placement weighed by the selector: the rule's busiest load, and its predicted seconds over the interval. */
    public final class Candidate {
        private final LayerPlacement p;
        private final long maxLoad;
        /** At least the predicted seconds. */
        private final double bound;
        private double seconds;

        private Candidate(LayerPlacement p, long maxLoad, double bound, double seconds) {
            this.p = p;
            this.maxLoad = maxLoad;
            this.bound = bound;
            this.seconds = seconds;
        }

        public LayerPlacement placement() {
            return p;
        }

        /** The exact predicted seconds, routing the rule's flows the first time they are asked for. */
        public double seconds() {
            if (Double.isNaN(seconds)) {
                seconds = scorer.seconds(p, null);
            }
            return seconds;
        }

        public boolean balanced() {
            return scorer.imbalance(maxLoad) <= BALANCE_CAP;
        }
    }

    private double staticSeconds() {
        if (Double.isNaN(staticSeconds)) {
            staticSeconds = scorer.staticSeconds(staticP, staticMaxLoad);
        }
        return staticSeconds;
    }

    /**
     * Weighs {@code p}: the rule's busiest load and an upper bound on its time (its exact time when it is static).
     * <p>
     * Most candidates are balanced and, bounded from above, faster than static's floor, and that settles them: the
     * rule's search stops at the first feasible threshold it finds within balance (at least the busiest load, so that
     * is balanced too), and the time bound at that load is below static's floor. The bound never falls as the load
     * grows but for rounding in its last places (its compute and exposed parameter terms trade off), which the margin
     * {@link #SETTLED_MARGIN} covers: the bound at the busiest load is below the floor as well. Such a candidate keeps
     * the threshold as its load and bound: {@link #pick} reads the load only through {@link Candidate#balanced}, which
     * it answers alike, and the bound only against the floor, with the same answer; {@link TopUp} never sees a balanced
     * candidate. Otherwise the search runs on from where it stopped to the busiest load.
     */
    public Candidate score(LayerPlacement p) {
        if (p.equals(staticP)) {
            return new Candidate(p, staticMaxLoad, staticSeconds(), staticSeconds());
        }
        long atMost = scorer.maxLoadAtMost(p, balancedLoad);
        double atMostBound = Double.NaN;
        if (atMost <= balancedLoad) {
            atMostBound = scorer.upperBound(p, atMost);
            if (atMostBound * (1 + SETTLED_MARGIN) <= staticFloor) {
                return new Candidate(p, atMost, atMostBound, Double.NaN);
            }
        }
        long max = scorer.maxLoad(p);
        return new Candidate(p, max, max == atMost && !Double.isNaN(atMostBound) ? atMostBound : scorer.upperBound(p, max),
                Double.NaN);
    }

    /** Exact, but the static floor and the candidate's bound usually settle it before any exact time is needed. */
    private boolean slowerThanStatic(Candidate k) {
        return k.bound > staticFloor && k.bound > staticSeconds() && k.seconds() > staticSeconds();
    }

    /** The first of {@code cands}, by predicted time, that is or can be topped up to balanced; null if none. */
    public LayerPlacement pick(Candidate... cands) {
        Candidate[] byTime = cands.clone();
        if (byTime.length > 1) {
            Arrays.sort(byTime, (x, y) -> Double.compare(x.seconds(), y.seconds()));
        }
        for (Candidate k : byTime) {
            if (k.p.equals(staticP) || slowerThanStatic(k)) {
                continue; // never predicted slower than the static layout, balanced or not
            }
            considered.add(k);
            if (!k.balanced()) {
                LayerPlacement topped = TopUp.topUp(scorer, k.p, k.maxLoad);
                if (topped == k.p) {
                    continue;
                }
                k = score(topped);
                considered.add(k);
            }
            if (k.balanced() && !slowerThanStatic(k)) {
                return k.p;
            }
        }
        return null;
    }

    /** When no candidate balances: static if it is balanced, else the fastest of everything weighed, static included. */
    public LayerPlacement fallback() {
        if (scorer.imbalance(staticMaxLoad) <= BALANCE_CAP) {
            return staticP;
        }
        Candidate fastest = null;
        for (Candidate k : considered) {
            if (fastest == null || k.seconds() < fastest.seconds()) {
                fastest = k;
            }
        }
        return fastest != null && fastest.seconds() < staticSeconds() ? fastest.p : staticP;
    }
}
