package dev.ballast.agent.balancer;

/**
 * Per-(layer, expert) token totals over all GPUs, smoothed across steps and kept across world generations
 * (unlike the per-source attribution, which depends on the world). The first plan of a new generation is computed
 * from it. Not thread-safe; the balancer's loop owns it.
 */
final class LoadHistory {
    private final double alpha;
    private double[][] ema;      // [layer][expert]
    private long[][] last;       // last observed step's totals
    private long lastStep = -1;
    private long observedSteps;

    LoadHistory(double alpha) {
        this.alpha = alpha;
    }

    void observe(long step, long[][] totals) {
        if (ema == null || ema.length != totals.length || ema[0].length != totals[0].length) {
            ema = new double[totals.length][totals[0].length];
            for (int l = 0; l < totals.length; l++) {
                for (int e = 0; e < totals[l].length; e++) {
                    ema[l][e] = totals[l][e];
                }
            }
        } else {
            for (int l = 0; l < totals.length; l++) {
                for (int e = 0; e < totals[l].length; e++) {
                    ema[l][e] += alpha * (totals[l][e] - ema[l][e]);
                }
            }
        }
        last = totals;
        lastStep = step;
        observedSteps++;
    }

    boolean isEmpty() {
        return ema == null;
    }

    /** Smoothed totals, rounded; null when nothing was observed. */
    long[][] smoothed() {
        if (ema == null) {
            return null;
        }
        long[][] out = new long[ema.length][ema[0].length];
        for (int l = 0; l < ema.length; l++) {
            for (int e = 0; e < ema[l].length; e++) {
                out[l][e] = Math.round(ema[l][e]);
            }
        }
        return out;
    }

    long[][] last() {
        return last;
    }

    long lastStep() {
        return lastStep;
    }

    long observedSteps() {
        return observedSteps;
    }
}
