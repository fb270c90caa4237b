package dev.ballast.trainer.checkpoint;

import java.util.List;

/** A trainer (one process, or one rank) whose state a checkpoint saves and restores. */
public interface Checkpointable {

    /** Steps completed so far (the checkpoint's step). */
    int completedSteps();

    /** What this trainer writes: its own slices only (rank 0 the dense tensors; each rank the experts it keeps). */
    List<TensorSlice> checkpointSlices();

    /** This trainer's batch stream (stream index = rank). */
    DataStream dataStream();

    /** Continues from state: the tensors this trainer keeps under its layout, stream rank's position, the step. */
    void restore(TrainingState state);
}
