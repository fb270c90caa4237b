package dev.ballast.trainer.model;

/** y = x / rms(x) * gain per row, rms(x) = sqrt(mean(x^2) + eps). Sums in double: the row length is small. */
public final class RmsNorm {

    private static final double EPS = 1e-5;

    private final Param gain;
    private final int dim;

    RmsNorm(String name, int dim) {
        this.dim = dim;
        this.gain = new Param(name, 1, dim, false);
        gain.fill(1f);
    }

    public Param gain() {
        return gain;
    }

    /** The output and the per-row 1/rms that the backward pass reuses. */
    public record Output(float[] y, float[] invRms) {
    }

    public Output forward(float[] x, int rows) {
        float[] y = new float[rows * dim];
        float[] inv = new float[rows];
        float[] g = gain.data();
        for (int r = 0; r < rows; r++) {
            double ss = 0;
            for (int j = 0; j < dim; j++) {
                double v = x[r * dim + j];
                ss += v * v;
            }
            float ir = (float) (1.0 / Math.sqrt(ss / dim + EPS));
            inv[r] = ir;
            for (int j = 0; j < dim; j++) {
                y[r * dim + j] = x[r * dim + j] * ir * g[j];
            }
        }
        return new Output(y, inv);
    }

    /** dx = r * (gain * dy) - x * r^3 / dim * sum(gain * dy * x); accumulates dgain. Returns dx. */
    public float[] backward(float[] x, Output out, float[] dy, int rows) {
        float[] dx = new float[rows * dim];
        float[] g = gain.data();
        float[] dg = gain.grad();
        for (int r = 0; r < rows; r++) {
            float ir = out.invRms()[r];
            double dot = 0;
            for (int j = 0; j < dim; j++) {
                int i = r * dim + j;
                dot += (double) g[j] * dy[i] * x[i];
                dg[j] += dy[i] * x[i] * ir;
            }
            float c = (float) (dot * ir * ir * ir / dim);
            for (int j = 0; j < dim; j++) {
                int i = r * dim + j;
                dx[i] = ir * g[j] * dy[i] - x[i] * c;
            }
        }
        return dx;
    }
}
