package dev.ballast.trainer.backend;

/**
 * What the model asks of a compute device: a row-major SGEMM with transposes and accumulation, and the elementwise
 * activation that sits between two GEMMs. Arrays live on the host; a device backend copies them in and out, so the
 * model's code is the same on every backend.
 */
public interface Backend extends AutoCloseable {

    /** A short name for logs ("java-vector", "java-scalar", "jcuda"). */
    String name();

    /**
     * C = alpha * op(A) * op(B) + beta * C, all row-major. op(A) is m x k (A is stored k x m when transA), op(B) is
     * k x n (B is stored n x k when transB), C is m x n. lda, ldb, ldc are the stored row lengths. beta == 0 ignores
     * what C held (even NaN), so callers need not clear it.
     */
    void gemm(boolean transA, boolean transB, int m, int n, int k, float alpha,
              float[] a, int lda, float[] b, int ldb, float beta, float[] c, int ldc);

    /** sig[i] = 1 / (1 + e^-h[i]) and a[i] = silu(h[i]) = h[i] * sig[i] for i < n; sig is kept for the backward. */
    default void silu(float[] h, float[] sig, float[] a, int n) {
        for (int i = 0; i < n; i++) {
            float s = 1f / (1f + (float) Math.exp(-h[i]));
            sig[i] = s;
            a[i] = h[i] * s;
        }
    }

    /** dh[i] = da[i] * silu'(h[i]), silu'(x) = s (1 + x (1 - s)) with s = sig[i] from {@link #silu}. */
    default void siluBackward(float[] h, float[] sig, float[] da, float[] dh, int n) {
        for (int i = 0; i < n; i++) {
            float s = sig[i];
            dh[i] = da[i] * s * (1f + h[i] * (1f - s));
        }
    }

    @Override
    default void close() {
    }
}
