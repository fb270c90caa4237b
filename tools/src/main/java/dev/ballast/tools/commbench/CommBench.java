package dev.ballast.tools.commbench;

import dev.ballast.collectives.CommConfig;
import dev.ballast.collectives.CommNode;
import dev.ballast.collectives.RankComm;
import dev.ballast.collectives.ReduceOp;
import dev.ballast.contracts.env.LocalPorts;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Loopback bandwidth and latency of the collectives (docs/collectives.md, "Measured"): this process is node rank 0
 * and starts a second JVM as node rank 1, one rank each, so every message crosses gRPC over loopback. For each message
 * size it times all-to-all-v (each rank sends that many bytes to the other) and all-reduce (SUM of that many bytes of
 * floats) and prints one line per (collective, size) with the median and mean time, the bandwidths and node rank 0's CPU
 * time per call. Run by
 * {@code bin/ballast commbench}.
 */
public final class CommBench {
    private CommBench() {
    }

    /** Payload sizes in bytes: latency (0 and 4 bytes) up to 64 MiB. */
    private static final int[] SIZES = {0, 4, 1 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20};

    public static void main(String[] args) throws Exception {
        // The tools classpath carries the agent's JBoss LogManager, through which Netty's HTTP/2 frame logger counts as
        // enabled and hex-dumps every frame to no handler; the trainer has no such backend. JDK logging keeps it off.
        InternalLoggerFactory.setDefaultFactory(JdkLoggerFactory.INSTANCE);
        if (args.length > 0 && args[0].equals("--peer")) {
            try (CommNode node = CommNode.join(CommConfig.fromEnv(System.getenv()))) {
                measure(node.rank(0), line -> { });
            }
            return;
        }
        int port = LocalPorts.listenPort();
        Process peer = startPeer(port);
        try (CommNode node = CommNode.join(new CommConfig("127.0.0.1", port, 2, 0, 1, 1, "127.0.0.1", "", 0,
            "commbench-0", Duration.ofSeconds(60), Duration.ofSeconds(120)))) {
            System.out.println("collective   bytes/rank   iters   median_us      mean_us   algbw_MBps   busbw_MBps"
                + "   cpu_us/call");
            measure(node.rank(0), System.out::println);
        } finally {
            if (!peer.waitFor(30, TimeUnit.SECONDS)) peer.destroyForcibly();
        }
        if (peer.exitValue() != 0) throw new IllegalStateException("the peer JVM exited with " + peer.exitValue());
    }

    private static Process startPeer(int port) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"), CommBench.class.getName(), "--peer");
        pb.inheritIO();
        pb.environment().put("MASTER_ADDR", "127.0.0.1");
        pb.environment().put("MASTER_PORT", Integer.toString(port));
        pb.environment().put("NNODES", "2");
        pb.environment().put("NODE_RANK", "1");
        pb.environment().put("NPROC_PER_NODE", "1");
        pb.environment().put("BALLAST_WORLD_GENERATION", "1");
        pb.environment().put("BALLAST_BIND_ADDRESS", "127.0.0.1");
        pb.environment().put("HOSTNAME", "commbench-1");
        return pb.start();
    }

    /** Both ranks run this; rank 0 reports. Timings are per call on rank 0 (each call synchronizes both ranks). */
    private static void measure(RankComm c, Consumer<String> report) {
        int n = c.worldSize();
        float[] small = new float[256];
        time(c, 2000, () -> c.allReduce(small, ReduceOp.SUM)); // JIT warm-up before the first size, not inside it
        for (int bytes : SIZES) {
            float[] values = new float[bytes / 4];
            Arrays.fill(values, 1.5f);
            float[][] toEach = new float[n][];
            Arrays.fill(toEach, values);
            int iters = iterations(bytes);
            // all-to-all: algbw = bytes a rank sends / time; busbw = algbw * (n-1)/n (NCCL's convention)
            report.accept(line("allToAllV", bytes, time(c, iters, () -> c.allToAllV(toEach)), 1.0 * (n - 1) / n));
            // all-reduce: busbw = algbw * 2(n-1)/n, the bytes each rank moves in reduce-scatter + all-gather
            report.accept(line("allReduce", bytes, time(c, iters, () -> c.allReduce(values, ReduceOp.SUM)),
                2.0 * (n - 1) / n));
        }
        c.barrier();
    }

    private static int iterations(int bytes) {
        return bytes >= (16 << 20) ? 10 : bytes >= (1 << 20) ? 50 : 500;
    }

    /** Wall nanoseconds per call and this JVM's CPU nanoseconds over all calls, after a fifth as many warm-ups. */
    private record Timing(long[] nanos, long cpuNanos) {
    }

    private static Timing time(RankComm c, int iters, Runnable call) {
        for (int i = 0; i < Math.max(2, iters / 5); i++) call.run();
        c.barrier();
        long[] nanos = new long[iters];
        long cpu0 = processCpuNanos();
        for (int i = 0; i < iters; i++) {
            long t0 = System.nanoTime();
            call.run();
            nanos[i] = System.nanoTime() - t0;
        }
        return new Timing(nanos, processCpuNanos() - cpu0);
    }

    /** CPU time of every thread of this JVM (rank thread, Netty event loops, GC): the cost that load cannot hide. */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime();
    }

    private static String line(String name, int bytes, Timing timing, double busFactor) {
        long[] nanos = timing.nanos();
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        double median = sorted[sorted.length / 2] / 1e3;
        double mean = Arrays.stream(nanos).average().orElse(0) / 1e3;
        double algbw = median > 0 ? bytes / median : 0; // bytes per microsecond = MB/s
        return String.format(Locale.ROOT, "%-10s %12d %7d %11.1f %12.1f %12.1f %12.1f %13.1f", name, bytes,
            nanos.length, median, mean, algbw, algbw * busFactor, timing.cpuNanos() / 1e3 / nanos.length);
    }
}
