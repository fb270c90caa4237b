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

    /** A checkpoint's moments and step count (same size as this state). */
    public void restore(float[] m, float[] v, long steps) {
        if (m.length != this.m.length || v.length != this.v.length) {
            throw new IllegalArgumentException("optimizer state of " + this.m.length + " restored from " + m.length);
        }
        System.arraycopy(m, 0, this.m, 0, m.length);
        System.arraycopy(v, 0, this.v, 0, v.length);
        this.steps = steps;
    }

    long advance() {
        return ++steps;
    }
}
