package dev.ballast.trainer.model;

/**
 * The model's sizes. The vocabulary is the 256 byte values. window: how many bytes (the current one and the ones
 * before it) feed each position's embedding, the model's only causal context.
 */
public record ModelConfig(int window, int dim, int ffnDim, int layers, int experts, int topK) {

    public static final int VOCAB = 256;

    public ModelConfig {
        positive("window", window);
        positive("dim", dim);
        positive("ffn-dim", ffnDim);
        positive("layers", layers);
        positive("experts", experts);
        positive("top-k", topK);
        if (topK > experts) {
            throw new IllegalArgumentException("top-k " + topK + " exceeds the number of experts " + experts);
        }
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
