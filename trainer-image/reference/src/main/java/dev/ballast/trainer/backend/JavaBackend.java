package dev.ballast.trainer.backend;

import java.util.Arrays;

/**
 * The pure-Java backend: single-threaded (one backend per rank thread; the scratch buffers are its own) and
 * deterministic (fixed summation order, no parallel reductions). Transposed or scaled operands are packed into
 * contiguous row-major scratch first, so one kernel serves all four transpose combinations.
 */
public final class JavaBackend implements Backend {

    private static final String VECTOR_MODULE = "jdk.incubator.vector";

    private final GemmKernel kernel;
    private float[] packA = new float[0];
    private float[] packB = new float[0];

    private JavaBackend(GemmKernel kernel) {
        this.kernel = kernel;
    }

    /** The Vector API kernel when the JVM runs with --add-modules jdk.incubator.vector, else the scalar one. */
    public static JavaBackend create() {
        return vectorApiAvailable() ? vector() : scalar();
    }

    /** The scalar kernel, whatever the JVM offers (tests compare it with the vector kernel bit for bit). */
    public static JavaBackend scalar() {
        return new JavaBackend(new ScalarGemmKernel());
    }

    static JavaBackend vector() {
        return new JavaBackend(new VectorGemmKernel());
    }

    public static boolean vectorApiAvailable() {
        return ModuleLayer.boot().findModule(VECTOR_MODULE).isPresent();
    }

    @Override
    public String name() {
        return kernel.name();
    }

    @Override
    public void gemm(boolean transA, boolean transB, int m, int n, int k, float alpha,
                     float[] a, int lda, float[] b, int ldb, float beta, float[] c, int ldc) {
        GemmShape.check(transA, transB, m, n, k, a, lda, b, ldb, c, ldc);
        scale(c, m, n, ldc, beta);
        if (m == 0 || n == 0 || k == 0 || alpha == 0f) {
            return;
        }
        float[] aa = a;
        int aLd = lda;
        if (transA || alpha != 1f) {
            packA = grow(packA, m * k);
            // loop over A as stored (contiguous reads), whichever way it is packed
            if (transA) {
                for (int p = 0; p < k; p++) {
                    for (int i = 0; i < m; i++) {
                        packA[i * k + p] = alpha * a[p * lda + i];
                    }
                }
            } else {
                for (int i = 0; i < m; i++) {
                    for (int p = 0; p < k; p++) {
                        packA[i * k + p] = alpha * a[i * lda + p];
                    }
                }
            }
            aa = packA;
            aLd = k;
        }
        float[] bb = b;
        int bLd = ldb;
        if (transB) {
            packB = grow(packB, k * n);
            for (int j = 0; j < n; j++) {
                for (int p = 0; p < k; p++) {
                    packB[p * n + j] = b[j * ldb + p];
                }
            }
            bb = packB;
            bLd = n;
        }
        kernel.multiplyAdd(m, n, k, aa, aLd, bb, bLd, c, ldc);
    }

    private static void scale(float[] c, int m, int n, int ldc, float beta) {
        if (beta == 1f) {
            return;
        }
        for (int i = 0; i < m; i++) {
            int from = i * ldc;
            if (beta == 0f) {
                Arrays.fill(c, from, from + n, 0f);
            } else {
                for (int j = from; j < from + n; j++) {
                    c[j] *= beta;
                }
            }
        }
    }

    private static float[] grow(float[] buffer, int size) {
        return buffer.length >= size ? buffer : new float[size];
    }
}
