package dev.ballast.trainer.backend;

/** Checks a GEMM call's sizes against its arrays, so a wrong shape fails with its name, not an index error. */
final class GemmShape {

    private GemmShape() {
    }

    static void check(boolean transA, boolean transB, int m, int n, int k,
                      float[] a, int lda, float[] b, int ldb, float[] c, int ldc) {
        if (m < 0 || n < 0 || k < 0) {
            throw new IllegalArgumentException("gemm: negative size m=" + m + " n=" + n + " k=" + k);
        }
        require("A", a, transA ? k : m, transA ? m : k, lda);
        require("B", b, transB ? n : k, transB ? k : n, ldb);
        require("C", c, m, n, ldc);
    }

    /** Elements a row-major rows x cols matrix with row length ld spans (0 when empty). */
    static int extent(int rows, int cols, int ld) {
        return rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
    }

    private static void require(String name, float[] x, int rows, int cols, int ld) {
        if (ld < cols) {
            throw new IllegalArgumentException("gemm: " + name + " has rows of " + cols + " but ld=" + ld);
        }
        int need = extent(rows, cols, ld);
        if (x.length < need) {
            throw new IllegalArgumentException("gemm: " + name + " is " + rows + "x" + cols + " (ld " + ld
                    + ") and needs " + need + " floats, got " + x.length);
        }
    }
}
