package dev.ballast.trainer.model;

import java.util.Arrays;
import java.util.Random;

/**
 * One parameter tensor, row-major rows x cols, with its gradient beside it. The unit that an optimizer state, a
 * replica refresh, a gradient reduction or a shard refers to. Mutable by design: the arrays are the model's storage.
 */
public final class Param {

    private final String name;
    private final int rows;
    private final int cols;
    private final boolean decays;
    private final float[] data;
    private final float[] grad;

    /** decays: whether AdamW applies weight decay (matrices yes, normalization gains no). */
    public Param(String name, int rows, int cols, boolean decays) {
        if (rows <= 0 || cols <= 0) {
            throw new IllegalArgumentException("parameter " + name + ": shape " + rows + "x" + cols);
        }
        this.name = name;
        this.rows = rows;
        this.cols = cols;
        this.decays = decays;
        this.data = new float[rows * cols];
        this.grad = new float[rows * cols];
    }

    public String name() {
        return name;
    }

    public int rows() {
        return rows;
    }

    public int cols() {
        return cols;
    }

    public int size() {
        return data.length;
    }

    public boolean decays() {
        return decays;
    }

    public float[] data() {
        return data;
    }

    public float[] grad() {
        return grad;
    }

    public void zeroGrad() {
        Arrays.fill(grad, 0f);
    }

    /** Same name, shape and values, zero gradient: a replica of an expert's tensor. */
    public Param copy() {
        Param p = new Param(name, rows, cols, decays);
        System.arraycopy(data, 0, p.data, 0, data.length);
        return p;
    }

    public void fillGaussian(Random random, double std) {
        for (int i = 0; i < data.length; i++) {
            data[i] = (float) (random.nextGaussian() * std);
        }
    }

    public void fill(float value) {
        Arrays.fill(data, value);
    }
}
