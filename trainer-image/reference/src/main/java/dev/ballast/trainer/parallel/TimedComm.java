package dev.ballast.trainer.parallel;

import dev.ballast.collectives.RankComm;
import dev.ballast.collectives.ReduceOp;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

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
        long w = System.nanoTime();
        long c = threadCpuNanos();
        try {
            return comm.allGather(values);
        } finally {
            account(w, c);
        }
    }

    float[][] allToAllV(float[][] toEach) {
        long w = System.nanoTime();
        long c = threadCpuNanos();
        try {
            return comm.allToAllV(toEach);
        } finally {
            account(w, c);
        }
    }

    float[] allReduceSum(float[] values) {
        long w = System.nanoTime();
        long c = threadCpuNanos();
        try {
            return comm.allReduce(values, ReduceOp.SUM);
        } finally {
            account(w, c);
        }
    }

    double[] allReduceSum(double[] values) {
        long w = System.nanoTime();
        long c = threadCpuNanos();
        try {
            return comm.allReduce(values, ReduceOp.SUM);
        } finally {
            account(w, c);
        }
    }

    private void account(long wallStart, long cpuStart) {
        wallNanos += System.nanoTime() - wallStart;
        cpuNanos += threadCpuNanos() - cpuStart;
    }
}
