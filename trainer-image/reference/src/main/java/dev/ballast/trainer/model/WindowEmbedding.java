package dev.ballast.trainer.model;

import java.util.Random;

/**
 * h[t] = sum over w < window of E_w[byte at t - w]: one table per offset, so the embedding is a fixed-window causal
 * convolution over one-hot bytes. It gives a position-wise model its context without attention. The tables are one
 * parameter of (window * 256) rows, row w * 256 + byte.
 */
public final class WindowEmbedding {

    private final Param table;
    private final int window;
    private final int dim;

    WindowEmbedding(int window, int dim) {
        this.window = window;
        this.dim = dim;
        this.table = new Param("embed", window * ModelConfig.VOCAB, dim, true);
    }

    void init(Random random) {
        table.fillGaussian(random, 1.0 / Math.sqrt(window));
    }

    public Param table() {
        return table;
    }

    /** context: tokens x window bytes, column w the byte w positions back. */
    public float[] forward(int[] context, int tokens) {
        float[] h = new float[tokens * dim];
        float[] e = table.data();
        for (int t = 0; t < tokens; t++) {
            for (int w = 0; w < window; w++) {
                int row = (w * ModelConfig.VOCAB + context[t * window + w]) * dim;
                for (int j = 0; j < dim; j++) {
                    h[t * dim + j] += e[row + j];
                }
            }
        }
        return h;
    }

    public void backward(int[] context, int tokens, float[] dh) {
        float[] g = table.grad();
        for (int t = 0; t < tokens; t++) {
            for (int w = 0; w < window; w++) {
                int row = (w * ModelConfig.VOCAB + context[t * window + w]) * dim;
                for (int j = 0; j < dim; j++) {
                    g[row + j] += dh[t * dim + j];
                }
            }
        }
    }
}
