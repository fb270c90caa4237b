package dev.ballast.trainer.moe;

/**
 * What an expert's backward needs from its forward: input x, h = x up, sig = sigmoid(h), a = silu(h) = h sig,
 * output y = a down.
 */
public record ExpertActivations(int rows, float[] x, float[] h, float[] sig, float[] a, float[] y) {
}
