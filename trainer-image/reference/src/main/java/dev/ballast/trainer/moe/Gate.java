package dev.ballast.trainer.moe;

import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.model.Param;

/**
 * The learned softmax gate: logits = x W, the top-k logits per token (ties to the lower expert index, so routing is a
 * pure function of the logits), weights = softmax over the selected logits only, which equals the full softmax's
 * top-k renormalized to sum 1. Top-k is piecewise constant: gradients flow through the selected logits only.
 * For benchmarks a routing skew s adds the constant -s ln(1 + e) to expert e's logit, multiplying its softmax odds
 * by (1 + e)^-s (Zipf-like); being constant, it changes no gradient formula.
 */
public final class Gate {

    private final Param weight;
    private final int dim;
    private final int experts;
    private final int topK;
    private final float[] skewBias;

    public Gate(String name, int dim, int experts, int topK) {
        this(name, dim, experts, topK, 0f);
    }

    public Gate(String name, int dim, int experts, int topK, float routingSkew) {
        this.weight = new Param(name, dim, experts, true);
        this.dim = dim;
        this.experts = experts;
        this.topK = topK;
        this.skewBias = new float[experts];
        for (int e = 0; e < experts; e++) {
            skewBias[e] = (float) (-routingSkew * Math.log1p(e));
        }
    }

    public Param weight() {
        return weight;
    }

    public Routing route(Backend backend, float[] x, int tokens) {
        float[] logits = new float[tokens * experts];
        for (int t = 0; t < tokens; t++) {
            System.arraycopy(skewBias, 0, logits, t * experts, experts);
        }
        backend.gemm(false, false, tokens, experts, dim, 1f, x, dim, weight.data(), experts, 1f, logits, experts);
        int[] chosen = new int[tokens * topK];
        float[] w = new float[tokens * topK];
        int[] counts = new int[experts];
        for (int t = 0; t < tokens; t++) {
            int base = t * topK;
            selectTopK(logits, t * experts, chosen, base);
            float max = logits[t * experts + chosen[base]];
            double sum = 0;
            for (int s = 0; s < topK; s++) {
                float e = (float) Math.exp(logits[t * experts + chosen[base + s]] - max);
                w[base + s] = e;
                sum += e;
            }
            for (int s = 0; s < topK; s++) {
                w[base + s] = (float) (w[base + s] / sum);
                counts[chosen[base + s]]++;
            }
        }
        return new Routing(tokens, topK, experts, chosen, w, counts);
    }

    /**
     * Given dL/dweight per slot, accumulates dL/dW and adds dL/dx into dx. For the renormalized softmax,
     * dL/dlogit_i = w_i (g_i - sum_j w_j g_j) over the selected slots; unselected logits get nothing.
     */
    public void backward(Backend backend, float[] x, Routing routing, float[] dWeight, float[] dx) {
        int tokens = routing.tokens();
        float[] dLogits = new float[tokens * experts];
        for (int t = 0; t < tokens; t++) {
            int base = t * topK;
            double dot = 0;
            for (int s = 0; s < topK; s++) {
                dot += (double) routing.weight()[base + s] * dWeight[base + s];
            }
            for (int s = 0; s < topK; s++) {
                float wi = routing.weight()[base + s];
                dLogits[t * experts + routing.expert()[base + s]] = (float) (wi * (dWeight[base + s] - dot));
            }
        }
        backend.gemm(true, false, dim, experts, tokens, 1f, x, dim, dLogits, experts, 1f, weight.grad(), experts);
        backend.gemm(false, true, tokens, dim, experts, 1f, dLogits, experts, weight.data(), experts, 1f, dx, dim);
    }

    /** Insertion of the k best into out[base..base+k), best first; strict '>' keeps the lower index on ties. */
    private void selectTopK(float[] logits, int row, int[] out, int base) {
        int filled = 0;
        for (int e = 0; e < experts; e++) {
            float v = logits[row + e];
            int pos = filled;
            while (pos > 0 && v > logits[row + out[base + pos - 1]]) {
                pos--;
            }
            if (pos >= topK) {
                continue;
            }
            int last = Math.min(filled, topK - 1);
            for (int q = last; q > pos; q--) {
                out[base + q] = out[base + q - 1];
            }
            out[base + pos] = e;
            if (filled < topK) {
                filled++;
            }
        }
    }
}
