package dev.ballast.client;

/**
 * The one collective the adoption rule needs: an element-wise MIN over all ranks of the job.
 * Every rank calls it at the same optimizer-step boundary with an array of the same length.
 * Local ranks of one JVM can use {@link InProcessAllReduce}; a multi-pod trainer plugs in its own collective
 * (NCCL/Gloo all-reduce with MIN; the reference trainer's CommAllReduce over its collectives).
 */
@FunctionalInterface
public interface AllReduce {
    long[] min(long[] local);
}
