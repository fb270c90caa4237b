package dev.ballast.trainer.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The Java GEMM against a plain triple loop in double, over odd shapes (below, at and above the 4-row by 2-vector
 * tile), every transpose combination, padded leading dimensions, alpha and beta. Tolerance per element:
 * 1e-5 * sum_p |alpha a_ip b_pj| + 1e-5 * |beta c_ij|, above the float32 worst case k * 2^-24 for k <= 160;
 * k = 300 (three of the vector kernel's k blocks) relies on the typical sqrt(k) growth of rounding errors.
 */
class JavaBackendGemmTest {

    private static final int[][] SHAPES = {{1, 1, 1}, {3, 5, 7}, {4, 32, 3}, {5, 33, 17}, {17, 1, 9}, {9, 47, 1},
        {31, 64, 64}, {8, 100, 129}, {64, 17, 160}, {6, 70, 300}, {0, 5, 3}, {4, 0, 3}, {4, 5, 0}};

    @Test
    void matchesTripleLoopForAllTransposesAndOddShapes() {
        for (Backend backend : new Backend[] {JavaBackend.create(), JavaBackend.scalar()}) {
            Random random = new Random(7);
            for (int[] s : SHAPES) {
                for (int ta = 0; ta < 2; ta++) {
                    for (int tb = 0; tb < 2; tb++) {
                        for (float[] ab : new float[][] {{1f, 0f}, {0.5f, 1f}, {-2f, 0.25f}}) {
                            checkOne(backend, random, s[0], s[1], s[2], ta == 1, tb == 1, ab[0], ab[1]);
                        }
                    }
                }
            }
        }
    }

    @Test
    void vectorAndScalarKernelsGiveTheSameBits() {
        Random random = new Random(3);
        int m = 37, n = 71, k = 300; // k spans three of the vector kernel's k blocks
        float[] a = fill(random, m * k);
        float[] b = fill(random, k * n);
        float[] c1 = fill(random, m * n);
        float[] c2 = c1.clone();
        JavaBackend.vector().gemm(false, true, m, n, k, 1f, a, k, transposeCopy(b, k, n), k, 1f, c1, n);
        JavaBackend.scalar().gemm(false, true, m, n, k, 1f, a, k, transposeCopy(b, k, n), k, 1f, c2, n);
        assertThat(c1).containsExactly(c2);
    }

    @Test
    void betaZeroIgnoresWhatCHeld() {
        float[] c = {Float.NaN, Float.NaN};
        JavaBackend.create().gemm(false, false, 1, 2, 1, 1f, new float[] {2f}, 1, new float[] {3f, 4f}, 2, 0f, c, 2);
        assertThat(c).containsExactly(6f, 8f);
    }

    @Test
    void aWrongShapeIsNamed() {
        assertThatThrownBy(() -> JavaBackend.create().gemm(false, false, 2, 2, 2, 1f, new float[3], 2,
                new float[4], 2, 0f, new float[4], 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("A is 2x2");
        assertThatThrownBy(() -> JavaBackend.create().gemm(false, false, 2, 2, 2, 1f, new float[4], 1,
                new float[4], 2, 0f, new float[4], 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ld=1");
    }

    private static void checkOne(Backend backend, Random random, int m, int n, int k, boolean ta, boolean tb,
                                 float alpha, float beta) {
        int aRows = ta ? k : m, aCols = ta ? m : k, bRows = tb ? n : k, bCols = tb ? k : n;
        int lda = aCols + 3, ldb = bCols + 1, ldc = n + 2; // padded rows: the kernels must honour ld
        float[] a = fill(random, Math.max(aRows * lda, 1));
        float[] b = fill(random, Math.max(bRows * ldb, 1));
        float[] c = fill(random, Math.max(m * ldc, 1));
        float[] before = c.clone();
        backend.gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double exact = beta == 0f ? 0 : (double) beta * before[i * ldc + j];
                double bound = 1e-5 * Math.abs(exact);
                for (int p = 0; p < k; p++) {
                    double term = (double) alpha * (ta ? a[p * lda + i] : a[i * lda + p])
                            * (tb ? b[j * ldb + p] : b[p * ldb + j]);
                    exact += term;
                    bound += 1e-5 * Math.abs(term);
                }
                String where = backend.name() + " " + m + "x" + n + "x" + k + " ta=" + ta + " tb=" + tb
                        + " alpha=" + alpha + " beta=" + beta + " at " + i + "," + j;
                assertThat((double) c[i * ldc + j]).as(where).isCloseTo(exact,
                        offset(bound + 1e-30));
            }
            for (int j = n; j < ldc && i * ldc + j < c.length; j++) {
                assertThat(c[i * ldc + j]).as("padding of C untouched").isEqualTo(before[i * ldc + j]);
            }
        }
    }

    static float[] fill(Random random, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = random.nextFloat() * 2 - 1;
        }
        return x;
    }

    private static float[] transposeCopy(float[] b, int rows, int cols) {
        float[] t = new float[rows * cols];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                t[j * rows + i] = b[i * cols + j];
            }
        }
        return t;
    }
}
