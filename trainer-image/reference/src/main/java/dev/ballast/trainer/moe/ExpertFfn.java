package dev.ballast.trainer.moe;

import dev.ballast.trainer.backend.Backend;

/** The expert's SiLU MLP, y = silu(x up) down, on a batch of token rows for one expert, forward and backward. */
public final class ExpertFfn {

    private ExpertFfn() {
    }

    public static ExpertActivations forward(Backend backend, ExpertParams p, float[] x, int rows) {
        int d = p.dim();
        int f = p.ffnDim();
        float[] h = new float[rows * f];
        float[] sig = new float[rows * f];
        float[] a = new float[rows * f];
        float[] y = new float[rows * d];
        backend.gemm(false, false, rows, f, d, 1f, x, d, p.up().data(), f, 0f, h, f);
        backend.silu(h, sig, a, rows * f);
        backend.gemm(false, false, rows, d, f, 1f, a, f, p.down().data(), d, 0f, y, d);
        return new ExpertActivations(rows, x, h, sig, a, y);
    }

    /** Accumulates the gradients of up and down into p; returns dL/dx. */
    public static float[] backward(Backend backend, ExpertParams p, ExpertActivations act, float[] dy) {
        int d = p.dim();
        int f = p.ffnDim();
        int rows = act.rows();
        float[] da = new float[rows * f];
        float[] dh = new float[rows * f];
        float[] dx = new float[rows * d];
        backend.gemm(true, false, f, d, rows, 1f, act.a(), f, dy, d, 1f, p.down().grad(), d);
        backend.gemm(false, true, rows, f, d, 1f, dy, d, p.down().data(), d, 0f, da, f);
        backend.siluBackward(act.h(), act.sig(), da, dh, rows * f);
        backend.gemm(true, false, d, f, rows, 1f, act.x(), d, dh, f, 1f, p.up().grad(), f);
        backend.gemm(false, true, rows, d, f, 1f, dh, f, p.up().data(), f, 0f, dx, d);
        return dx;
    }
}
