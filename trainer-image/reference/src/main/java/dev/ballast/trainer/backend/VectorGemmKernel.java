package dev.ballast.trainer.backend;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Register-tiled GEMM on the Vector API: a 4-row by 2-vector tile of C stays in registers for the whole k loop, so
 * each step loads two vectors of B, broadcasts four values of A and issues eight FMAs. Edges (rows not a multiple of
 * 4, columns not a multiple of the vector length) use the same per-element FMA chain, one lane at a time.
 */
final class VectorGemmKernel implements GemmKernel {

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();

    @Override
    public String name() {
        return "java-vector(" + S.vectorBitSize() + "-bit)";
    }

    @Override
    public void multiplyAdd(int m, int n, int k, float[] a, int lda, float[] b, int ldb, float[] c, int ldc) {
        int i = 0;
        for (; i + 4 <= m; i += 4) {
            int j = 0;
            for (; j + 2 * L <= n; j += 2 * L) {
                tile4x2(i, j, k, a, lda, b, ldb, c, ldc);
            }
            for (; j + L <= n; j += L) {
                for (int r = 0; r < 4; r++) {
                    row1x1(i + r, j, k, a, lda, b, ldb, c, ldc);
                }
            }
            for (int r = 0; r < 4; r++) {
                scalarTail(i + r, j, n, k, a, lda, b, ldb, c, ldc);
            }
        }
        for (; i < m; i++) {
            int j = 0;
            for (; j + L <= n; j += L) {
                row1x1(i, j, k, a, lda, b, ldb, c, ldc);
            }
            scalarTail(i, j, n, k, a, lda, b, ldb, c, ldc);
        }
    }

    private static void tile4x2(int i, int j, int k, float[] a, int lda, float[] b, int ldb, float[] c, int ldc) {
        int c0 = i * ldc + j, c1 = c0 + ldc, c2 = c1 + ldc, c3 = c2 + ldc;
        FloatVector x00 = FloatVector.fromArray(S, c, c0), x01 = FloatVector.fromArray(S, c, c0 + L);
        FloatVector x10 = FloatVector.fromArray(S, c, c1), x11 = FloatVector.fromArray(S, c, c1 + L);
        FloatVector x20 = FloatVector.fromArray(S, c, c2), x21 = FloatVector.fromArray(S, c, c2 + L);
        FloatVector x30 = FloatVector.fromArray(S, c, c3), x31 = FloatVector.fromArray(S, c, c3 + L);
        int a0 = i * lda, a1 = a0 + lda, a2 = a1 + lda, a3 = a2 + lda;
        for (int p = 0, bp = j; p < k; p++, bp += ldb) {
            FloatVector b0 = FloatVector.fromArray(S, b, bp), b1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector v = FloatVector.broadcast(S, a[a0 + p]);
            x00 = v.fma(b0, x00);
            x01 = v.fma(b1, x01);
            v = FloatVector.broadcast(S, a[a1 + p]);
            x10 = v.fma(b0, x10);
            x11 = v.fma(b1, x11);
            v = FloatVector.broadcast(S, a[a2 + p]);
            x20 = v.fma(b0, x20);
            x21 = v.fma(b1, x21);
            v = FloatVector.broadcast(S, a[a3 + p]);
            x30 = v.fma(b0, x30);
            x31 = v.fma(b1, x31);
        }
        x00.intoArray(c, c0);
        x01.intoArray(c, c0 + L);
        x10.intoArray(c, c1);
        x11.intoArray(c, c1 + L);
        x20.intoArray(c, c2);
        x21.intoArray(c, c2 + L);
        x30.intoArray(c, c3);
        x31.intoArray(c, c3 + L);
    }

    private static void row1x1(int i, int j, int k, float[] a, int lda, float[] b, int ldb, float[] c, int ldc) {
        int ci = i * ldc + j, ai = i * lda;
        FloatVector x = FloatVector.fromArray(S, c, ci);
        for (int p = 0, bp = j; p < k; p++, bp += ldb) {
            x = FloatVector.broadcast(S, a[ai + p]).fma(FloatVector.fromArray(S, b, bp), x);
        }
        x.intoArray(c, ci);
    }

    private static void scalarTail(int i, int from, int n, int k, float[] a, int lda, float[] b, int ldb,
                                   float[] c, int ldc) {
        int ai = i * lda;
        for (int j = from; j < n; j++) {
            float x = c[i * ldc + j];
            for (int p = 0; p < k; p++) {
                x = Math.fma(a[ai + p], b[p * ldb + j], x);
            }
            c[i * ldc + j] = x;
        }
    }
}
