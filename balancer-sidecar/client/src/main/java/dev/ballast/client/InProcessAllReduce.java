package dev.ballast.client;

import java.util.Arrays;

/**
 * MIN all-reduce among a fixed number of threads of one JVM (one per local rank). Each call blocks until all
 * parties have contributed, then every party gets the same element-wise minimum. Reusable round after round.
 */
public final class InProcessAllReduce implements AllReduce {
    private final int parties;
    private long[] acc;
    private int arrived;
    private long round;
    private long[] lastResult;

    public InProcessAllReduce(int parties) {
        if (parties <= 0) {
            throw new IllegalArgumentException("parties must be > 0, got " + parties);
        }
        this.parties = parties;
    }

    @Override
    public synchronized long[] min(long[] local) {
        if (acc == null) {
            acc = local.clone();
        } else {
            if (acc.length != local.length) {
                throw new IllegalArgumentException("all-reduce arrays differ in length: " + acc.length + " vs " + local.length);
            }
            for (int i = 0; i < acc.length; i++) {
                acc[i] = Math.min(acc[i], local[i]);
            }
        }
        long myRound = round;
        if (++arrived == parties) {
            lastResult = acc;
            acc = null;
            arrived = 0;
            round++;
            notifyAll();
            return lastResult.clone();
        }
        while (round == myRound) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted in all-reduce", e);
            }
        }
        return Arrays.copyOf(lastResult, lastResult.length);
    }
}
