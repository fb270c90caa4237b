package dev.ballast.trainer.moe;

import dev.ballast.trainer.model.Param;
import java.util.List;
import java.util.Random;

/**
 * One expert's parameters (up: dim x ffn, down: ffn x dim) and their gradients, as an object of its own: the owner
 * keeps it with its optimizer state, a replica is a {@link #copy()}, a shard is a slice of its tensors' arrays.
 */
public final class ExpertParams {

    private final int layer;
    private final int expert;
    private final Param up;
    private final Param down;

    public ExpertParams(int layer, int expert, int dim, int ffnDim) {
        this(layer, expert, new Param(name(layer, expert, "up"), dim, ffnDim, true),
                new Param(name(layer, expert, "down"), ffnDim, dim, true));
    }

    private ExpertParams(int layer, int expert, Param up, Param down) {
        this.layer = layer;
        this.expert = expert;
        this.up = up;
        this.down = down;
    }

    public int layer() {
        return layer;
    }

    public int expert() {
        return expert;
    }

    public Param up() {
        return up;
    }

    public Param down() {
        return down;
    }

    public int dim() {
        return up.rows();
    }

    public int ffnDim() {
        return up.cols();
    }

    /** The tensors in a fixed order (up, down): the order of any flattening, shard or checkpoint. */
    public List<Param> params() {
        return List.of(up, down);
    }

    public void zeroGrad() {
        up.zeroGrad();
        down.zeroGrad();
    }

    /** A replica: same weights, own zero gradients. */
    public ExpertParams copy() {
        return new ExpertParams(layer, expert, up.copy(), down.copy());
    }

    /** up ~ N(0, 1/dim); down ~ N(0, 1/(ffn * 2 * layers)) so the residual stream's scale stays put with depth. */
    public void init(Random random, int layers) {
        up.fillGaussian(random, 1.0 / Math.sqrt(dim()));
        down.fillGaussian(random, 1.0 / Math.sqrt(ffnDim() * 2.0 * layers));
    }

    private static String name(int layer, int expert, String tensor) {
        return "layer" + layer + ".expert" + expert + "." + tensor;
    }
}
