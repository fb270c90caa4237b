package dev.ballast.agent.balancer;

import java.util.Arrays;

/**
 * Flags GPU ranks that run persistently slower than their peers (docs/elastic.md "Stragglers"). Complete steps in
 * which every rank reported its compute time (or, when some did not, every rank its step time) are grouped into
 * windows of {@link #WINDOW_STEPS}; in each window a rank's mean time is compared with the median of the other
 * ranks' means. A rank at or above {@link #FACTOR} times that median is slow in that window; slow in
 * {@link #WINDOWS} windows in a row, it is flagged, and it is cleared after as many windows in a row that were not
 * slow (so a rank near the factor does not flap). Compute time is preferred because a rank that waits for a slow
 * peer in a collective has a long step time too, but not a long compute time. Needs at least two ranks; one world
 * generation per instance. Not thread-safe.
 */
final class SlowRanks {
    static final int WINDOW_STEPS = 8;
    static final double FACTOR = 1.3;
    static final int WINDOWS = 3;

    private final int gpus;
    private final double[] sums;
    private final double[] means;
    private final double[] sorted;
    private final double[] ratios;
    private final int[] slowInARow;
    private final int[] fineInARow;
    private final boolean[] flagged;
    private int steps;
    private boolean compute; // which time the open window sums

    SlowRanks(int gpus) {
        this.gpus = gpus;
        this.sums = new double[gpus];
        this.means = new double[gpus];
        this.sorted = new double[gpus];
        this.ratios = new double[gpus];
        Arrays.fill(ratios, Double.NaN);
        this.slowInARow = new int[gpus];
        this.fineInARow = new int[gpus];
        this.flagged = new boolean[gpus];
    }

    /**
     * One complete step's per-rank times (index: GPU rank; null or a NaN entry: not every rank reported it).
     * Returns whether the flagged set changed.
     */
    boolean step(double[] computeSeconds, double[] stepSeconds) {
        double[] times = allTimed(computeSeconds) ? computeSeconds : allTimed(stepSeconds) ? stepSeconds : null;
        if (times == null || gpus < 2) {
            return false;
        }
        boolean isCompute = times == computeSeconds;
        if (steps > 0 && isCompute != compute) { // the ranks changed what they report: start the window again
            steps = 0;
            Arrays.fill(sums, 0);
        }
        compute = isCompute;
        for (int r = 0; r < gpus; r++) {
            sums[r] += times[r];
        }
        if (++steps < WINDOW_STEPS) {
            return false;
        }
        for (int r = 0; r < gpus; r++) {
            means[r] = sums[r] / steps;
        }
        steps = 0;
        Arrays.fill(sums, 0);
        return closeWindow();
    }

    private boolean allTimed(double[] t) {
        if (t == null || t.length != gpus) {
            return false;
        }
        for (double x : t) {
            if (Double.isNaN(x)) {
                return false;
            }
        }
        return true;
    }

    private boolean closeWindow() {
        System.arraycopy(means, 0, sorted, 0, gpus);
        Arrays.sort(sorted);
        boolean changed = false;
        for (int r = 0; r < gpus; r++) {
            double peers = medianWithout(sorted, Arrays.binarySearch(sorted, means[r]));
            ratios[r] = peers > 0 ? means[r] / peers : Double.NaN;
            boolean slow = ratios[r] >= FACTOR;
            slowInARow[r] = slow ? slowInARow[r] + 1 : 0;
            fineInARow[r] = slow ? 0 : fineInARow[r] + 1;
            if (!flagged[r] && slowInARow[r] >= WINDOWS) {
                flagged[r] = true;
                changed = true;
            } else if (flagged[r] && fineInARow[r] >= WINDOWS) {
                flagged[r] = false;
                changed = true;
            }
        }
        return changed;
    }

    /** The median of {@code s} (sorted) without its element at {@code skip} (any index holding that value). */
    static double medianWithout(double[] s, int skip) {
        int n = s.length - 1;
        double lo = at(s, skip, (n - 1) / 2);
        double hi = at(s, skip, n / 2);
        return (lo + hi) / 2;
    }

    private static double at(double[] s, int skip, int k) {
        return s[k < skip ? k : k + 1];
    }

    /** The flagged ranks, ascending. */
    int[] flagged() {
        int[] out = new int[count()];
        int i = 0;
        for (int r = 0; r < gpus; r++) {
            if (flagged[r]) {
                out[i++] = r;
            }
        }
        return out;
    }

    int count() {
        int n = 0;
        for (boolean f : flagged) {
            if (f) {
                n++;
            }
        }
        return n;
    }

    /** Rank {@code r}'s mean time over its peers' median in the last closed window (NaN before the first). */
    double ratio(int r) {
        return ratios[r];
    }

    /** Whether the windows use compute time (else step time); meaningful once a window closed. */
    boolean usesCompute() {
        return compute;
    }
}
