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

    /** a[i] = silu(h[i]) = h / (1 + e^-h) for i < n. */
    default void silu(float[] h, float[] a, int n) {
        for (int i = 0; i < n; i++) {
            float x = h[i];
            a[i] = x / (1f + (float) Math.exp(-x));
        }
    }

    /** dh[i] = da[i] * silu'(h[i]), silu'(x) = s(x) * (1 + x * (1 - s(x))) with s the logistic function. */
    default void siluBackward(float[] h, float[] da, float[] dh, int n) {
        for (int i = 0; i < n; i++) {
            float x = h[i];
            float s = 1f / (1f + (float) Math.exp(-x));
            dh[i] = da[i] * s * (1f + x * (1f - s));
        }
    }

    @Override
    default void close() {
    }
}
