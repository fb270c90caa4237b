package dev.ballast.trainer.model;

import dev.ballast.trainer.backend.Backend;
import java.util.Random;

/** Final RMSNorm, logits = x W (dim x 256), mean cross-entropy against the next byte, and the gradient of it all. */
public final class OutputHead {

    private final int dim;
    private final RmsNorm norm;
    private final Param weight;

    OutputHead(int dim) {
        this.dim = dim;
        this.norm = new RmsNorm("final.norm", dim);
        this.weight = new Param("head", dim, ModelConfig.VOCAB, true);
    }

    void init(Random random) {
        weight.fillGaussian(random, 1.0 / Math.sqrt(dim));
    }

    public RmsNorm norm() {
        return norm;
    }

    public Param weight() {
        return weight;
    }

    /** The loss and dL/dh (null when not asked for). */
    public record Result(double loss, float[] dh) {
    }

    /** Mean cross-entropy over the tokens, summed in double in token order. With grads, accumulates dnorm, dW. */
    public Result loss(Backend backend, float[] h, int[] target, int tokens, boolean grads) {
        int v = ModelConfig.VOCAB;
        RmsNorm.Output normed = norm.forward(h, tokens);
        float[] logits = new float[tokens * v];
        backend.gemm(false, false, tokens, v, dim, 1f, normed.y(), dim, weight.data(), v, 0f, logits, v);
        double total = 0;
        for (int t = 0; t < tokens; t++) {
            int row = t * v;
            float max = Float.NEGATIVE_INFINITY;
            for (int j = 0; j < v; j++) {
                max = Math.max(max, logits[row + j]);
            }
            total -= logits[row + target[t]] - max;
            // exp(logit - max) once per logit, kept in place for the gradient: the exps cost more than the GEMMs
            double sum = 0;
            for (int j = 0; j < v; j++) {
                double e = Math.exp(logits[row + j] - max);
                logits[row + j] = (float) e;
                sum += e;
            }
            total += Math.log(sum);
            if (grads) {
                // dL/dlogit = (softmax - onehot) / tokens, written over the exps
                double scale = 1.0 / (sum * tokens);
                for (int j = 0; j < v; j++) {
                    logits[row + j] = (float) (logits[row + j] * scale);
                }
                logits[row + target[t]] -= 1f / tokens;
            }
        }
        if (!grads) {
            return new Result(total / tokens, null);
        }
        float[] dNormed = new float[tokens * dim];
        backend.gemm(true, false, dim, v, tokens, 1f, normed.y(), dim, logits, v, 1f, weight.grad(), v);
        backend.gemm(false, true, tokens, dim, v, 1f, logits, v, weight.data(), v, 0f, dNormed, dim);
        return new Result(total / tokens, norm.backward(h, normed, dNormed, tokens));
    }
}
