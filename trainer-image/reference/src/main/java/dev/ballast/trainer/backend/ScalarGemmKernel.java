package dev.ballast.trainer.backend;

/** The fallback when the Vector API module is absent: the same FMA chains as {@link VectorGemmKernel}, one lane. */
final class ScalarGemmKernel implements GemmKernel {

    @Override
    public String name() {
        return "java-scalar";
    }

    @Override
    public void multiplyAdd(int m, int n, int k, float[] a, int lda, float[] b, int ldb, float[] c, int ldc) {
        // i-p-j order: C's row and B's row stream contiguously; per element the p order is still ascending.
        for (int i = 0; i < m; i++) {
            int ci = i * ldc;
            for (int p = 0; p < k; p++) {
                float av = a[i * lda + p];
                int bp = p * ldb;
                for (int j = 0; j < n; j++) {
                    c[ci + j] = Math.fma(av, b[bp + j], c[ci + j]);
                }
            }
        }
    }
}
