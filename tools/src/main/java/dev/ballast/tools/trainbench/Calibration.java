package dev.ballast.tools.trainbench;

import dev.ballast.planner.model.GpuPlace;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.Topology;
import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.backend.JavaBackend;
import dev.ballast.trainer.model.ModelConfig;
import dev.ballast.trainer.parallel.PodRanks;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * The cost model's constants for this machine, measured apart from the runs they are compared with: the Java
 * backend's GEMM rate on an expert's six GEMMs (forward and backward, FLOP per second of thread CPU), and the
 * collectives' all-to-all rate between ranks of one simulated pod and between pods (gRPC over loopback), payload
 * bytes per second of wall time per rank.
 */
public record Calibration(double gemmFlopsPerSecond, double intraPodBytesPerSecond, double crossPodBytesPerSecond) {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    public Calibration {
        for (double v : new double[] {gemmFlopsPerSecond, intraPodBytesPerSecond, crossPodBytesPerSecond}) {
            if (!(v > 0) || Double.isInfinite(v)) {
                throw new IllegalArgumentException("a calibrated rate must be a positive number, got " + v);
            }
        }
    }

    /**
     * The topology of the simulated world with these rates: a pod is a node (its ranks exchange through memory, the
     * NVLink class), pods reach each other over the network class, one rack. The cost model counts 2 bytes per
     * activation element and {@link BenchPlans#shape} 2 per parameter (bf16) while the trainer sends 4 (float32), so
     * every rate is given in those half-size units: half the measured payload rate.
     */
    public Topology topology(int pods, int ranksPerPod) {
        List<GpuPlace> gpus = new ArrayList<>();
        for (int p = 0; p < pods; p++) {
            for (int r = 0; r < ranksPerPod; r++) {
                gpus.add(new GpuPlace(p, 0));
            }
        }
        double nic = crossPodBytesPerSecond / 2 / 1e9;
        return Topology.of(gpus, new Hardware(intraPodBytesPerSecond / 2 / 1e9, nic, nic,
                gemmFlopsPerSecond / 1e12, 1.0));
    }

    /** Thread-CPU rate of one expert's forward and backward GEMMs at rows x dim x ffn, the trainer's Java backend. */
    static double gemmRate(ModelConfig model, int rows, double cpuSeconds) {
        int d = model.dim();
        int f = model.ffnDim();
        Random random = new Random(7);
        float[] x = fill(random, rows * d);
        float[] up = fill(random, d * f);
        float[] down = fill(random, f * d);
        float[] h = new float[rows * f];
        float[] y = new float[rows * d];
        float[] da = new float[rows * f];
        float[] dx = new float[rows * d];
        float[] gUp = new float[d * f];
        float[] gDown = new float[f * d];
        double flopsPerRound = 6 * 2.0 * rows * d * f;
        try (Backend b = JavaBackend.create()) {
            // ExpertFfn's six GEMMs; every output has its own array and the gradients are overwritten (beta 0), so
            // the operands stay the same bounded values round after round (no overflow into Inf and NaN).
            Runnable round = () -> {
                b.gemm(false, false, rows, f, d, 1f, x, d, up, f, 0f, h, f);
                b.gemm(false, false, rows, d, f, 1f, h, f, down, d, 0f, y, d);
                b.gemm(true, false, f, d, rows, 1f, h, f, y, d, 0f, gDown, d);
                b.gemm(false, true, rows, f, d, 1f, y, d, down, d, 0f, da, f);
                b.gemm(true, false, d, f, rows, 1f, x, d, da, f, 0f, gUp, f);
                b.gemm(false, true, rows, d, f, 1f, da, f, up, f, 0f, dx, d);
            };
            long warm = THREADS.getCurrentThreadCpuTime();
            while (THREADS.getCurrentThreadCpuTime() - warm < cpuSeconds * 1e9) {
                round.run(); // until C2 has compiled the kernel
            }
            long start = THREADS.getCurrentThreadCpuTime();
            long rounds = 0;
            while (THREADS.getCurrentThreadCpuTime() - start < cpuSeconds * 1e9) {
                round.run();
                rounds++;
            }
            return rounds * flopsPerRound / ((THREADS.getCurrentThreadCpuTime() - start) / 1e9);
        }
    }

    /**
     * Payload bytes per second per rank of all-to-alls in which every rank sends {@code bytes} to each rank of its own
     * pod (crossPod false) or of the other pods (true) and nothing elsewhere: median wall time of {@code calls}.
     */
    static double allToAllRate(PodRanks world, int ranksPerPod, int bytes, int calls, boolean crossPod) {
        if (ranksPerPod < 2 && !crossPod) {
            throw new IllegalArgumentException("a pod of one rank has no peer in its pod to measure");
        }
        List<double[]> times = world.run((comm, node) -> {
            int me = comm.rank();
            float[][] send = new float[comm.worldSize()][];
            int peers = 0;
            for (int g = 0; g < send.length; g++) {
                boolean cross = node[g] != node[me];
                boolean sends = g != me && cross == crossPod;
                send[g] = new float[sends ? bytes / Float.BYTES : 0];
                peers += sends ? 1 : 0;
            }
            double[] t = new double[calls];
            for (int i = -3; i < calls; i++) {
                comm.barrier();
                long t0 = System.nanoTime();
                comm.allToAllV(send);
                if (i >= 0) {
                    t[i] = (System.nanoTime() - t0) / 1e9 / peers;
                }
            }
            return t;
        });
        double[] all = times.stream().flatMapToDouble(Arrays::stream).sorted().toArray();
        return bytes / all[all.length / 2];
    }

    private static float[] fill(Random random, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) random.nextGaussian();
        }
        return a;
    }
}
