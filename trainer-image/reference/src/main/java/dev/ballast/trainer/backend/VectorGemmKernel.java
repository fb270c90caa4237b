package dev.ballast.trainer.backend;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * Register-tiled GEMM on the Vector API. A 4-row by 2-vector tile of C stays in registers over a block of k; each
 * step loads two vectors of B, broadcasts four values of A and issues eight FMAs. B is copied block by block into
 * contiguous panels (KC rows by 2 vectors) so the tile streams it from L1 whatever B's row length. Blocking k does
 * not reorder anything: each C element still sees p = 0..k-1 in ascending order, one FMA at a time. Edges (rows not
 * a multiple of 4, columns not a multiple of 2 vectors) use the same per-element chain with fewer lanes.
 */
final class VectorGemmKernel implements GemmKernel {

    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    private static final int W = 2 * L;
    /** KC x W floats: 16 KiB with 512-bit vectors, half of a 32 KiB L1. */
    private static final int KC = 128;
    private static final VectorSpecies<Float> HALF = FloatVector.SPECIES_256;
    private static final VectorSpecies<Float> QUARTER = FloatVector.SPECIES_128;

    private final float[] panel = new float[KC * W];

    @Override
    public String name() {
        return "java-vector(" + S.vectorBitSize() + "-bit)";
    }

    @Override
    public void multiplyAdd(int m, int n, int k, float[] a, int lda, float[] b, int ldb, float[] c, int ldc) {
        int full = n - n % W;
        for (int p0 = 0; p0 < k; p0 += KC) {
            int p1 = Math.min(k, p0 + KC);
            for (int j = 0; j < full; j += W) {
                pack(b, ldb, p0, p1, j);
                int i = 0;
                for (; i + 4 <= m; i += 4) {
                    tile4(i, j, p0, p1, a, lda, c, ldc);
                }
                for (; i < m; i++) {
                    tile1(i, j, p0, p1, a, lda, c, ldc);
                }
            }
            for (int i = 0; i < m; i++) {
                int j = full;
                // narrower vectors for narrow matrices (the gate's 8 experts); one method per width, since the
                // Vector API compiles to SIMD only where the species is a constant
                for (; j + L <= n; j += L) {
                    vectorFull(i, j, p0, p1, a, lda, b, ldb, c, ldc);
                }
                for (; j + HALF.length() <= n && HALF.length() < L; j += HALF.length()) {
                    vectorHalf(i, j, p0, p1, a, lda, b, ldb, c, ldc);
                }
                for (; j + QUARTER.length() <= n && QUARTER.length() < L; j += QUARTER.length()) {
                    vectorQuarter(i, j, p0, p1, a, lda, b, ldb, c, ldc);
                }
                scalar(i, j, n, p0, p1, a, lda, b, ldb, c, ldc);
            }
        }
    }

    private void pack(float[] b, int ldb, int p0, int p1, int j) {
        for (int p = p0; p < p1; p++) {
            System.arraycopy(b, p * ldb + j, panel, (p - p0) * W, W);
        }
    }

    private void tile4(int i, int j, int p0, int p1, float[] a, int lda, float[] c, int ldc) {
        int c0 = i * ldc + j, c1 = c0 + ldc, c2 = c1 + ldc, c3 = c2 + ldc;
        FloatVector x00 = FloatVector.fromArray(S, c, c0), x01 = FloatVector.fromArray(S, c, c0 + L);
        FloatVector x10 = FloatVector.fromArray(S, c, c1), x11 = FloatVector.fromArray(S, c, c1 + L);
        FloatVector x20 = FloatVector.fromArray(S, c, c2), x21 = FloatVector.fromArray(S, c, c2 + L);
        FloatVector x30 = FloatVector.fromArray(S, c, c3), x31 = FloatVector.fromArray(S, c, c3 + L);
        int a0 = i * lda, a1 = a0 + lda, a2 = a1 + lda, a3 = a2 + lda;
        float[] bp = panel;
        for (int p = p0, q = 0; p < p1; p++, q += W) {
            FloatVector b0 = FloatVector.fromArray(S, bp, q), b1 = FloatVector.fromArray(S, bp, q + L);
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

    private void tile1(int i, int j, int p0, int p1, float[] a, int lda, float[] c, int ldc) {
        int ci = i * ldc + j, ai = i * lda;
        FloatVector x0 = FloatVector.fromArray(S, c, ci), x1 = FloatVector.fromArray(S, c, ci + L);
        for (int p = p0, q = 0; p < p1; p++, q += W) {
            FloatVector v = FloatVector.broadcast(S, a[ai + p]);
            x0 = v.fma(FloatVector.fromArray(S, panel, q), x0);
            x1 = v.fma(FloatVector.fromArray(S, panel, q + L), x1);
        }
        x0.intoArray(c, ci);
        x1.intoArray(c, ci + L);
    }

    private static void vectorFull(int i, int j, int p0, int p1, float[] a, int lda, float[] b, int ldb,
            float[] c, int ldc) {
        int ci = i * ldc + j, ai = i * lda;
        FloatVector x = FloatVector.fromArray(S, c, ci);
        for (int p = p0; p < p1; p++) {
            x = FloatVector.broadcast(S, a[ai + p]).fma(FloatVector.fromArray(S, b, p * ldb + j), x);
        }
        x.intoArray(c, ci);
    }

    private static void vectorHalf(int i, int j, int p0, int p1, float[] a, int lda, float[] b, int ldb,
            float[] c, int ldc) {
        int ci = i * ldc + j, ai = i * lda;
        FloatVector x = FloatVector.fromArray(HALF, c, ci);
        for (int p = p0; p < p1; p++) {
            x = FloatVector.broadcast(HALF, a[ai + p]).fma(FloatVector.fromArray(HALF, b, p * ldb + j), x);
        }
        x.intoArray(c, ci);
    }

    private static void vectorQuarter(int i, int j, int p0, int p1, float[] a, int lda, float[] b, int ldb,
            float[] c, int ldc) {
        int ci = i * ldc + j, ai = i * lda;
        FloatVector x = FloatVector.fromArray(QUARTER, c, ci);
        for (int p = p0; p < p1; p++) {
            x = FloatVector.broadcast(QUARTER, a[ai + p]).fma(FloatVector.fromArray(QUARTER, b, p * ldb + j), x);
        }
        x.intoArray(c, ci);
    }

    private static void scalar(int i, int from, int n, int p0, int p1, float[] a, int lda, float[] b, int ldb,
                               float[] c, int ldc) {
        int ai = i * lda;
        for (int j = from; j < n; j++) {
            float x = c[i * ldc + j];
            for (int p = p0; p < p1; p++) {
                x = Math.fma(a[ai + p], b[p * ldb + j], x);
            }
            c[i * ldc + j] = x;
        }
    }
}
