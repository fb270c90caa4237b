package dev.ballast.trainer.optim;

/** AdamW's hyperparameters; weight decay is decoupled (applied to the weights, not mixed into the gradient). */
public record AdamWConfig(float lr, float beta1, float beta2, float eps, float weightDecay) {

    public AdamWConfig {
        if (!(lr > 0) || !(beta1 >= 0 && beta1 < 1) || !(beta2 >= 0 && beta2 < 1) || !(eps > 0) || weightDecay < 0) {
            throw new IllegalArgumentException("AdamW: need lr > 0, 0 <= betas < 1, eps > 0, weight decay >= 0; got "
                    + this);
        }
    }

    public static AdamWConfig defaults() {
        return new AdamWConfig(3e-3f, 0.9f, 0.99f, 1e-8f, 0.01f);
    }

    public AdamWConfig withLr(float newLr) {
        return new AdamWConfig(newLr, beta1, beta2, eps, weightDecay);
    }
}
