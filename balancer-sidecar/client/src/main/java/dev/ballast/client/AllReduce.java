package dev.ballast.client;

/**
 * The one collective the adoption rule needs: an element-wise MIN over all ranks of the job.
 * Every rank calls it at the same optimizer-step boundary with an array of the same length.
 * The reference trainer runs its pod's local ranks in one JVM ({@link InProcessAllReduce});
 * a multi-pod trainer plugs in its own collective (NCCL/Gloo all-reduce with MIN).
 */
@FunctionalInterface
public interface AllReduce {
    long[] min(long[] local);
}
