package dev.ballast.trainer.parallel;

import dev.ballast.collectives.RankComm;
import dev.ballast.collectives.ReduceOp;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A rank's communicator with a clock: the wall time spent inside collectives (exchange time) and this thread's CPU
 * time inside them, so a step's compute time is its thread CPU time without the exchanges' share.
 */
public final class TimedComm {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final RankComm comm;
    private long wallNanos;
    private long cpuNanos;

    public TimedComm(RankComm comm) {
        this.comm = comm;
    }

    public int rank() {
        return comm.rank();
    }

    public int worldSize() {
        return comm.worldSize();
    }

    /** Wall nanoseconds spent in collectives since construction. */
    public long wallNanos() {
        return wallNanos;
    }

    /** This thread's CPU nanoseconds spent in collectives since construction. */
    public long cpuNanos() {
        return cpuNanos;
    }

    static long threadCpuNanos() {
        return THREADS.getCurrentThreadCpuTime();
    }

    float[][] allGather(float[] values) {
        return timed(() -> comm.allGather(values));
    }

    float[][] allToAllV(float[][] toEach) {
        return timed(() -> comm.allToAllV(toEach));
    }

    float[] allReduceSum(float[] values) {
        return timed(() -> comm.allReduce(values, ReduceOp.SUM));
    }

    double[] allReduceSum(double[] values) {
        return timed(() -> comm.allReduce(values, ReduceOp.SUM));
    }

    float[] reduceScatterSum(float[] values, int[] shardSizes) {
        return timed(() -> comm.reduceScatter(values, shardSizes, ReduceOp.SUM));
    }

    Map<Integer, float[]> sparseAllGather(Map<Integer, float[]> owned, int[] wants) {
        return timed(() -> comm.sparseAllGather(owned, wants));
    }

    private <T> T timed(Supplier<T> call) {
        long wall = System.nanoTime();
        long cpu = threadCpuNanos();
        try {
            return call.get();
        } finally {
            wallNanos += System.nanoTime() - wall;
            cpuNanos += threadCpuNanos() - cpu;
        }
    }
}
