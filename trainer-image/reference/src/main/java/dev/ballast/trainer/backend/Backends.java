package dev.ballast.trainer.backend;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import jcuda.jcublas.JCublas2;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.JCuda;

/**
 * Chooses the backend. CUDA is probed once per JVM (cuBLAS loading, then a device and a cuBLAS handle) and the outcome
 * logged once: without cuBLAS JCuda's libJCublas2 fails to link (UnsatisfiedLinkError, then NoClassDefFoundError on
 * later use); without a driver the runtime reports an insufficient driver; both are caught here and mean "no GPU",
 * never a crash.
 */
public final class Backends {

    private static final System.Logger LOG = System.getLogger(Backends.class.getName());

    private Backends() {
    }

    /** "auto" (JCuda when a device answers, else Java), "java" or "jcuda" (fails when no device answers). */
    public static Backend select(String choice) {
        return switch (choice) {
            case "auto" -> cudaAvailable() ? new JCudaBackend() : java();
            case "java" -> java();
            case "jcuda" -> {
                if (!cudaAvailable()) {
                    throw new IllegalStateException("backend jcuda: no CUDA device or driver ("
                            + CudaProbe.RESULT.reason + ")");
                }
                yield new JCudaBackend();
            }
            default -> throw new IllegalArgumentException("unknown backend '" + choice + "': use auto, java or jcuda");
        };
    }

    public static boolean cudaAvailable() {
        return CudaProbe.RESULT.available;
    }

    private static Backend java() {
        JavaBackend backend = JavaBackend.create();
        if (!JavaBackend.vectorApiAvailable()) {
            LOG.log(Level.WARNING, "Java backend without the Vector API (run with --add-modules jdk.incubator.vector):"
                    + " the scalar GEMM gives the same results, many times slower");
        }
        return backend;
    }

    /** The once-per-JVM probe (holder class: initialised on first use, thread-safe by class initialisation). */
    private static final class CudaProbe {
        static final CudaProbe RESULT = probe();

        final boolean available;
        final String reason;

        private CudaProbe(boolean available, String reason) {
            this.available = available;
            this.reason = reason;
            LOG.log(Level.INFO, "CUDA " + (available ? "available: " : "not available: ") + reason);
        }

        /**
         * JCuda writes its native libraries into {@code java.io.tmpdir} under fixed names when they are not there yet,
         * then loads them: a trainer starting beside another on the same host (processes sharing /tmp, as on bare
         * metal or under the e2e harness's process kubelet) could map a half-written library and die of SIGBUS. So
         * the probe runs under an exclusive lock on a file beside them, one process of the host at a time.
         */
        private static CudaProbe probe() {
            Path lockFile = Path.of(System.getProperty("java.io.tmpdir"), "ballast-jcuda-natives.lock");
            try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock ignored = channel.lock()) {
                return probeNow();
            } catch (IOException e) {
                LOG.log(Level.WARNING, "could not lock " + lockFile + " (" + e.getMessage() + "): probing CUDA without it");
                return probeNow();
            }
        }

        private static CudaProbe probeNow() {
            try {
                // cuBLAS first: libJCublas2 links libcublas.so.12 and libcublasLt.so.12, which only the CUDA image
                // has, so a missing library is named even where no driver would answer the device query below
                JCublas2.initialize();
                JCuda.setExceptionsEnabled(true);
                int[] count = new int[1];
                JCuda.cudaGetDeviceCount(count);
                if (count[0] == 0) {
                    return new CudaProbe(false, "the driver reports no device");
                }
                cublasHandle handle = new cublasHandle();
                JCublas2.cublasCreate(handle);
                JCublas2.cublasDestroy(handle);
                return new CudaProbe(true, count[0] + " device(s), cuBLAS loaded");
            } catch (LinkageError | RuntimeException e) { // natives without cuBLAS; CudaException from the driver
                return new CudaProbe(false, e.getClass().getSimpleName() + ": " + firstCause(e.getMessage()));
            }
        }
    }

    /**
     * The line of a failure's message that names the cause: JCuda's UnsatisfiedLinkError message holds both load
     * attempts' stack traces, and only the loader's "cannot open shared object file" line names the missing library.
     */
    static String firstCause(String message) {
        if (message == null) {
            return "no message";
        }
        return message.lines().filter(l -> l.contains("cannot open shared object file")).findFirst()
                .map(l -> l.replaceFirst("^java\\.lang\\.UnsatisfiedLinkError: ", ""))
                .orElse(message.lines().findFirst().orElse(message));
    }
}
