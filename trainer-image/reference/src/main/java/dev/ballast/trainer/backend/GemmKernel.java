package dev.ballast.trainer.backend;

/**
 * The inner GEMM of the Java backend: C += A * B, row-major, nothing transposed, alpha already applied. Every
 * implementation computes each C element as one chain of fused multiply-adds over p = 0..k-1 in order, so all
 * kernels give the same bits and the model's losses do not depend on which one ran.
 */
interface GemmKernel {

    String name();

    void multiplyAdd(int m, int n, int k, float[] a, int lda, float[] b, int ldb, float[] c, int ldc);
}
