package dev.ballast.trainer.backend;

import static jcuda.jcublas.cublasOperation.CUBLAS_OP_N;
import static jcuda.jcublas.cublasOperation.CUBLAS_OP_T;
import static jcuda.runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost;
import static jcuda.runtime.cudaMemcpyKind.cudaMemcpyHostToDevice;

import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.jcublas.JCublas2;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.JCuda;

/**
 * cuBLAS SGEMM on the current CUDA device. Operands come from the host and C goes back to it; the three device
 * buffers grow to the largest call and are reused, so a training step allocates nothing on the device after the
 * first. Not thread-safe: one backend per rank thread, like the Java one. Construct through {@link Backends}, which
 * has checked that the driver loads.
 */
public final class JCudaBackend implements Backend {

    private final cublasHandle handle = new cublasHandle();
    private final DeviceBuffer da = new DeviceBuffer();
    private final DeviceBuffer db = new DeviceBuffer();
    private final DeviceBuffer dc = new DeviceBuffer();

    JCudaBackend() {
        JCuda.setExceptionsEnabled(true);
        JCublas2.setExceptionsEnabled(true);
        JCublas2.cublasCreate(handle);
    }

    @Override
    public String name() {
        return "jcuda";
    }

    @Override
    public void gemm(boolean transA, boolean transB, int m, int n, int k, float alpha,
                     float[] a, int lda, float[] b, int ldb, float beta, float[] c, int ldc) {
        GemmShape.check(transA, transB, m, n, k, a, lda, b, ldb, c, ldc);
        int cLen = GemmShape.extent(m, n, ldc);
        if (cLen == 0) {
            return;
        }
        da.upload(a, GemmShape.extent(transA ? k : m, transA ? m : k, lda));
        db.upload(b, GemmShape.extent(transB ? n : k, transB ? k : n, ldb));
        if (beta == 0f) {
            dc.reserve(cLen); // cuBLAS does not read C when beta is 0
        } else {
            dc.upload(c, cLen);
        }
        // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands, keep the flags.
        JCublas2.cublasSgemm(handle, transB ? CUBLAS_OP_T : CUBLAS_OP_N, transA ? CUBLAS_OP_T : CUBLAS_OP_N,
                n, m, k, Pointer.to(new float[] {alpha}), db.pointer, ldb, da.pointer, lda,
                Pointer.to(new float[] {beta}), dc.pointer, ldc);
        JCuda.cudaMemcpy(Pointer.to(c), dc.pointer, (long) cLen * Sizeof.FLOAT, cudaMemcpyDeviceToHost);
    }

    @Override
    public void close() {
        da.free();
        db.free();
        dc.free();
        JCublas2.cublasDestroy(handle);
    }

    /** A grow-only device allocation. */
    private static final class DeviceBuffer {
        final Pointer pointer = new Pointer();
        long capacity;

        void reserve(int floats) {
            long bytes = (long) Math.max(floats, 1) * Sizeof.FLOAT;
            if (bytes > capacity) {
                free();
                JCuda.cudaMalloc(pointer, bytes);
                capacity = bytes;
            }
        }

        void upload(float[] host, int floats) {
            reserve(floats);
            if (floats > 0) {
                JCuda.cudaMemcpy(pointer, Pointer.to(host), (long) floats * Sizeof.FLOAT, cudaMemcpyHostToDevice);
            }
        }

        void free() {
            if (capacity > 0) {
                JCuda.cudaFree(pointer);
                capacity = 0;
            }
        }
    }
}
