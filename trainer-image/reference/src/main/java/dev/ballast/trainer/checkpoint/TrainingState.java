package dev.ballast.trainer.checkpoint;

import dev.ballast.trainer.model.Param;
import dev.ballast.trainer.optim.AdamState;
import java.util.List;
import java.util.Map;

/**
 * A whole run as a checkpoint holds it, whatever world size wrote it: the last completed step, every tensor (dense
 * and expert) whole with its AdamW state, and the batch streams by index (stream r was rank r's).
 */
public record TrainingState(int step, Map<String, TensorSlice> tensors, List<DataStream> streams) {

    public TrainingState {
        tensors = Map.copyOf(tensors);
        streams = List.copyOf(streams);
    }

    /** Each tensor of states (by name) with its AdamW state from this checkpoint. */
    public void restore(Map<Param, AdamState> states) {
        states.forEach((p, s) -> tensor(p.name()).restore(p, s));
    }

    public TensorSlice tensor(String name) {
        TensorSlice t = tensors.get(name);
        if (t == null) {
            throw new IllegalStateException("the checkpoint has no tensor " + name
                    + ": resume with the model flags of the run that wrote it");
        }
        return t;
    }
}
