package dev.ballast.trainer.optim;

/**
 * The optimizer state of one parameter tensor: first and second moments and its own step count (for the bias
 * correction). Per tensor, so it lives wherever the tensor's owner lives and moves (or shards) with it.
 */
public final class AdamState {

    private final float[] m;
    private final float[] v;
    private long steps;

    public AdamState(int size) {
        this.m = new float[size];
        this.v = new float[size];
    }

    public float[] m() {
        return m;
    }

    public float[] v() {
        return v;
    }

    public long steps() {
        return steps;
    }

    long advance() {
        return ++steps;
    }
}
