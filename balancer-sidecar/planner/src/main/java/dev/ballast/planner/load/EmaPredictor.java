package dev.ballast.planner.load;

/**
 * Predicts the next step's counts as an exponential moving average of past steps, per (layer, copy, source, expert):
 * {@code pred ← α·observed + (1−α)·pred}, initialised with the first observation; predictions are rounded to integers.
 */
public final class EmaPredictor {
    /** Default smoothing: half weight on the newest step (reacts within a few steps; see docs/planner.md). */
    public static final double DEFAULT_ALPHA = 0.5;

    private final double alpha;
    private double[][][] state;
    private int observed;

    public EmaPredictor(double alpha) {
        if (!(alpha > 0 && alpha <= 1)) {
            throw new IllegalArgumentException("EMA alpha must be in (0, 1], got " + alpha);
        }
        this.alpha = alpha;
    }

    public double alpha() {
        return alpha;
    }

    public int observedSteps() {
        return observed;
    }

    public void observe(ModelLoads step) {
        if (state == null) {
            state = new double[step.layers()][step.dp()][];
            for (int l = 0; l < step.layers(); l++) {
                for (int c = 0; c < step.dp(); c++) {
                    long[] x = step.counts(l, c);
                    double[] s = new double[x.length];
                    for (int i = 0; i < x.length; i++) {
                        s[i] = x[i];
                    }
                    state[l][c] = s;
                }
            }
        } else {
            for (int l = 0; l < step.layers(); l++) {
                for (int c = 0; c < step.dp(); c++) {
                    long[] x = step.counts(l, c);
                    double[] s = state[l][c];
                    for (int i = 0; i < x.length; i++) {
                        s[i] += alpha * (x[i] - s[i]);
                    }
                }
            }
        }
        observed++;
    }

    public ModelLoads predict(int ep, int experts) {
        if (state == null) {
            throw new IllegalStateException("no step observed yet");
        }
        ModelLoads out = new ModelLoads(state.length, state[0].length, ep, experts);
        for (int l = 0; l < state.length; l++) {
            for (int c = 0; c < state[l].length; c++) {
                long[] dst = out.counts(l, c);
                double[] s = state[l][c];
                for (int i = 0; i < s.length; i++) {
                    dst[i] = Math.round(s[i]);
                }
            }
        }
        return out;
    }
}
