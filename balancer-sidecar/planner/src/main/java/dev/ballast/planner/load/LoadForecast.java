package dev.ballast.planner.load;

/**
 * The prediction a plan is computed from: per source, an EMA of this world generation's steps ({@link EmaPredictor});
 * before the generation's first step, the per-expert totals of earlier generations ({@link LoadHistory}) spread
 * evenly over the new world's sources, so a resized job gets a plan without waiting for a step. Not thread-safe.
 */
public final class LoadForecast {
    private final double alpha;
    private final LoadHistory history;
    private EmaPredictor predictor;
    private int layers;
    private int dp;
    private int ep;
    private int experts;

    public LoadForecast(double alpha) {
        this.alpha = alpha;
        this.history = new LoadHistory(alpha);
    }

    /** A new layout (world generation or spec): per-source smoothing starts over; the history of totals is kept. */
    public void restart(int layers, int dp, int ep, int experts) {
        this.layers = layers;
        this.dp = dp;
        this.ep = ep;
        this.experts = experts;
        this.predictor = new EmaPredictor(alpha);
    }

    /** Adds one whole step of the current layout; the caller may reuse {@code loads} afterwards (nothing keeps it). */
    public void observe(long step, ModelLoads loads) {
        if (predictor == null) {
            throw new IllegalStateException("no layout: call restart before observing steps");
        }
        predictor.observe(loads);
        history.observe(step, loads);
    }

    /** The next step's predicted loads, or null while neither this layout's steps nor a matching history exist. */
    public ModelLoads predict() {
        if (predictor == null) {
            return null;
        }
        return predictor.observedSteps() > 0 ? predictor.predict(ep, experts) : fromHistory();
    }

    /** Steps observed since the last {@link #restart}. */
    public int observedSteps() {
        return predictor == null ? 0 : predictor.observedSteps();
    }

    public LoadHistory history() {
        return history;
    }

    /** The history's totals split exactly over all sources: the first (total mod sources) sources get one more. */
    private ModelLoads fromHistory() {
        long[][] h = history.smoothed();
        if (h == null || h.length != layers || h[0].length != experts) {
            return null;
        }
        ModelLoads m = new ModelLoads(layers, dp, ep, experts);
        long sources = (long) dp * ep;
        for (int l = 0; l < layers; l++) {
            for (int c = 0; c < dp; c++) {
                long[] dst = m.counts(l, c);
                for (int s = 0; s < ep; s++) {
                    long idx = (long) c * ep + s;
                    for (int e = 0; e < experts; e++) {
                        dst[s * experts + e] = h[l][e] / sources + (idx < h[l][e] % sources ? 1 : 0);
                    }
                }
            }
        }
        return m;
    }
}
