package dev.ballast.planner.load;

/**
 * Per-(layer, expert) token totals over all GPUs, smoothed across steps and kept across world generations
 * (unlike the per-source attribution, which depends on the world). The first plan of a new generation is computed
 * from it ({@link LoadForecast}); the balancer's dashboard shows it, and persists it ({@link #smoothed} with
 * {@link #restore}) so that a restarted balancer plans the next world from it. Not thread-safe.
 */
public final class LoadHistory {
    private final double alpha;
    private double[][] ema;      // [layer][expert]
    private long[][] last;       // last observed step's totals
    private long lastStep = -1;
    private long observedSteps;

    public LoadHistory(double alpha) {
        this.alpha = alpha;
    }

    /** Adds one step's loads, summed over data-parallel copies and sources. */
    public void observe(long step, ModelLoads loads) {
        long[][] totals = new long[loads.layers()][];
        for (int l = 0; l < loads.layers(); l++) {
            long[] t = new long[loads.experts()];
            for (int c = 0; c < loads.dp(); c++) {
                long[] x = loads.expertTotals(l, c);
                for (int e = 0; e < t.length; e++) {
                    t[e] += x[e];
                }
            }
            totals[l] = t;
        }
        observeTotals(step, totals);
    }

    private void observeTotals(long step, long[][] totals) {
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

    /**
     * Starts from persisted smoothed totals (what {@link #smoothed} returned): predictions equal those of the history
     * that was persisted, and the next steps are smoothed onto them. The last step's totals read as the restored ones
     * until a step is observed. {@code totals} is copied.
     */
    public void restore(long[][] totals, long lastStep, long observedSteps) {
        ema = new double[totals.length][];
        last = new long[totals.length][];
        for (int l = 0; l < totals.length; l++) {
            ema[l] = new double[totals[l].length];
            for (int e = 0; e < totals[l].length; e++) {
                ema[l][e] = totals[l][e];
            }
            last[l] = totals[l].clone();
        }
        this.lastStep = lastStep;
        this.observedSteps = observedSteps;
    }

    /** Smoothed totals, rounded; null when nothing was observed. */
    public long[][] smoothed() {
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

    /** The last observed step's totals [layer][expert], or null. */
    public long[][] last() {
        return last;
    }

    public long lastStep() {
        return lastStep;
    }

    public long observedSteps() {
        return observedSteps;
    }
}
