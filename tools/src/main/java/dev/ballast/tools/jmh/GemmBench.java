package dev.ballast.tools.jmh;

import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.backend.JavaBackend;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The reference trainer's Java GEMM, one thread: one operation is one floating-point operation (a GEMM counts
 * 2 m n k), so throughput in ops/ns reads as GFLOP/s per core. Square shapes, the transposed forms the backward
 * pass uses, and an expert's up-projection at the trainer's default sizes (512 rows, 64 -> 128). The forks get the
 * Vector API module the kernel needs (docs/trainer.md). On a shared machine wall-clock throughput shows the share of
 * a core the thread got, not the kernel, so each iteration also prints GFLOP per second of thread CPU time. Run:
 * {@code bin/ballast jmh tools -f 1 -wi 3 -i 5 GemmBench}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class GemmBench {

    private final Backend backend = JavaBackend.create();
    private float[] a512;
    private float[] b512;
    private float[] c512;
    private float[] rows;
    private float[] up;
    private float[] hidden;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private long cpuStart;
    private long calls;

    @Setup
    public void setup() {
        Random random = new Random(1);
        a512 = fill(random, 512 * 512);
        b512 = fill(random, 512 * 512);
        c512 = new float[512 * 512];
        rows = fill(random, 512 * 64);
        up = fill(random, 64 * 128);
        hidden = new float[512 * 128];
    }

    @Setup(Level.Iteration)
    public void startCpuClock() {
        calls = 0;
        cpuStart = threads.getCurrentThreadCpuTime();
    }

    @TearDown(Level.Iteration)
    public void printCpuRate(BenchmarkParams params) {
        long cpu = threads.getCurrentThreadCpuTime() - cpuStart;
        String name = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
        System.out.printf("  [%s: %.1f GFLOP per CPU-second, thread CPU time]", name,
                (double) calls * params.getOpsPerInvocation() / cpu);
    }

    @Benchmark
    @OperationsPerInvocation(2 * 256 * 256 * 256)
    public float[] nn256() {
        calls++;
        backend.gemm(false, false, 256, 256, 256, 1f, a512, 256, b512, 256, 0f, c512, 256);
        return c512;
    }

    @Benchmark
    @OperationsPerInvocation(2 * 512 * 512 * 512)
    public float[] nn512() {
        calls++;
        backend.gemm(false, false, 512, 512, 512, 1f, a512, 512, b512, 512, 0f, c512, 512);
        return c512;
    }

    /** A weight gradient: x^T dy, accumulated. */
    @Benchmark
    @OperationsPerInvocation(2 * 256 * 256 * 256)
    public float[] tn256() {
        calls++;
        backend.gemm(true, false, 256, 256, 256, 1f, a512, 256, b512, 256, 1f, c512, 256);
        return c512;
    }

    /** An input gradient: dy W^T. */
    @Benchmark
    @OperationsPerInvocation(2 * 256 * 256 * 256)
    public float[] nt256() {
        calls++;
        backend.gemm(false, true, 256, 256, 256, 1f, a512, 256, b512, 256, 0f, c512, 256);
        return c512;
    }

    @Benchmark
    @OperationsPerInvocation(2 * 512 * 64 * 128)
    public float[] expertUp512x64x128() {
        calls++;
        backend.gemm(false, false, 512, 128, 64, 1f, rows, 64, up, 128, 0f, hidden, 128);
        return hidden;
    }

    private static float[] fill(Random random, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = random.nextFloat() * 2 - 1;
        }
        return x;
    }
}
