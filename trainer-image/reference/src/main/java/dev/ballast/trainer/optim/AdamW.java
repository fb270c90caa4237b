package dev.ballast.trainer.optim;

import dev.ballast.trainer.model.Param;

/**
 * One AdamW update of one tensor from its gradient: w -= lr * wd * w (decoupled decay, matrices only), then
 * w -= lr * mhat / (sqrt(vhat) + eps) with bias-corrected moments. Elementwise, so updating a shard of a tensor
 * with the matching shard of its state gives the same bits as updating the whole.
 */
public final class AdamW {

    private final AdamWConfig config;

    public AdamW(AdamWConfig config) {
        this.config = config;
    }

    public AdamWConfig config() {
        return config;
    }

    public void update(Param param, AdamState state) {
        if (state.m().length != param.size()) {
            throw new IllegalArgumentException("optimizer state of " + state.m().length + " for " + param.name()
                    + " of " + param.size());
        }
        update(param.data(), param.grad(), 0, state, param.decays());
    }

    /**
     * A shard's update: w[from + i] from g[from + i] with the state's moments at i, for i below the state's size
     * (an FSSDP rank holds the state of its shard only).
     */
    public void update(float[] w, float[] g, int from, AdamState state, boolean decays) {
        int n = state.m().length;
        if (from < 0 || from + n > w.length || w.length != g.length) {
            throw new IllegalArgumentException("optimizer shard [" + from + ", " + (from + n) + ") outside a tensor of "
                    + w.length + " (gradient " + g.length + ")");
        }
        long t = state.advance();
        float b1 = config.beta1();
        float b2 = config.beta2();
        float lr = config.lr();
        float c1 = (float) (1.0 / (1.0 - Math.pow(b1, t)));
        float c2 = (float) (1.0 / (1.0 - Math.pow(b2, t)));
        float decay = decays ? 1f - lr * config.weightDecay() : 1f;
        float[] m = state.m();
        float[] v = state.v();
        for (int i = 0; i < n; i++) {
            float gi = g[from + i];
            m[i] = b1 * m[i] + (1f - b1) * gi;
            v[i] = b2 * v[i] + (1f - b2) * gi * gi;
            float mh = m[i] * c1;
            float vh = v[i] * c2;
            w[from + i] = w[from + i] * decay - lr * mh / ((float) Math.sqrt(vh) + config.eps());
        }
    }
}
