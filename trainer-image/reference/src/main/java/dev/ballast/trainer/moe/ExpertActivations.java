package dev.ballast.trainer.moe;

/** What an expert's backward needs from its forward: input x, h = x up, a = silu(h), output y = a down. */
public record ExpertActivations(int rows, float[] x, float[] h, float[] a, float[] y) {
}
