package dev.ballast.trainer.checkpoint;

import dev.ballast.trainer.model.Param;
import dev.ballast.trainer.optim.AdamState;
import java.util.List;
import java.util.Map;

/**
 * Elements [from, from + data.length) of one tensor (rows x cols, row-major) with their AdamW moments and the
 * tensor's AdamW step count: what one writer contributes to a checkpoint. A whole tensor is the slice from 0.
 */
public record TensorSlice(String name, int rows, int cols, int from, float[] data, float[] m, float[] v,
                          long steps) {

    public TensorSlice {
        if (data.length != m.length || data.length != v.length) {
            throw new IllegalArgumentException("tensor " + name + ": " + data.length + " values but moments of "
                    + m.length + " and " + v.length);
        }
        if (from < 0 || from + data.length > rows * cols) {
            throw new IllegalArgumentException("tensor " + name + " (" + rows + "x" + cols + "): slice [" + from
                    + ", " + (from + data.length) + ") outside it");
        }
    }

    /** The whole tensor and its state, copied (the caller keeps training on the originals). */
    public static TensorSlice of(Param p, AdamState state) {
        return new TensorSlice(p.name(), p.rows(), p.cols(), 0, p.data().clone(), state.m().clone(),
                state.v().clone(), state.steps());
    }

    /** Every tensor of states whole, with its state. */
    public static List<TensorSlice> of(Map<Param, AdamState> states) {
        return states.entrySet().stream().map(e -> of(e.getKey(), e.getValue())).toList();
    }

    /** Puts this whole tensor's values and state into p and state (their shapes must match). */
    public void restore(Param p, AdamState state) {
        if (p.rows() != rows || p.cols() != cols || from != 0 || data.length != p.size()) {
            throw new IllegalStateException("checkpoint tensor " + name + " is " + rows + "x" + cols
                    + " but the model's " + p.name() + " is " + p.rows() + "x" + p.cols()
                    + ": resume with the model flags of the run that wrote it");
        }
        System.arraycopy(data, 0, p.data(), 0, data.length);
        state.restore(m, v, steps);
    }
}
