package dev.ballast.trainer.model;

/**
 * The model's sizes. The vocabulary is the 256 byte values. window: how many bytes (the current one and the ones
 * before it) feed each position's embedding, the model's only causal context. routingSkew: for benchmarks only,
 * a fixed bias towards low expert ids on top of the learned gate (0: the learned gate alone; see {@code Gate}).
 */
public record ModelConfig(int window, int dim, int ffnDim, int layers, int experts, int topK, float routingSkew) {

    public static final int VOCAB = 256;

    public ModelConfig {
        positive("window", window);
        positive("dim", dim);
        positive("ffn-dim", ffnDim);
        positive("layers", layers);
        positive("experts", experts);
        positive("top-k", topK);
        if (!(routingSkew >= 0) || Float.isInfinite(routingSkew)) {
            throw new IllegalArgumentException("routing skew must be a finite number >= 0, got " + routingSkew);
        }
        if (topK > experts) {
            throw new IllegalArgumentException("top-k " + topK + " exceeds the number of experts " + experts);
        }
    }

    /** Without routing skew: the learned gate alone. */
    public ModelConfig(int window, int dim, int ffnDim, int layers, int experts, int topK) {
        this(window, dim, ffnDim, layers, experts, topK, 0f);
    }

    /** The CLI's default: small enough for a CPU, big enough that the gate learns an uneven routing. */
    public static ModelConfig defaults() {
        return new ModelConfig(8, 64, 128, 2, 8, 2);
    }

    private static void positive(String name, int value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
    }
}
