package dev.ballast.trainer.parallel;

import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.trainer.checkpoint.TensorSlice;
import dev.ballast.trainer.checkpoint.TrainingState;
import dev.ballast.trainer.moe.ExpertParams;
import dev.ballast.trainer.optim.AdamW;
import java.util.List;

/**
 * Where a rank's expert weights, gradients and optimizer state live between steps, and how the copies a step's
 * placement materializes on the rank come from them and go back: {@link ReplicatedExperts} (owners plus refreshed
 * replicas) or {@link ShardedExperts} (FSSDP). Every call is collective: all ranks make it with the same placements.
 */
public interface ExpertStore {

    Mode mode();

    /** Makes the step's copies: placements[layer] says which experts each rank computes with. */
    void materialize(LayerPlacement[] placements);

    /** The copy of the expert this rank computes with this step (it accumulates the step's gradients). */
    ExpertParams copy(int layer, int expert);

    /**
     * After the backward pass: every copy's gradients summed (in ascending rank order) into what this rank keeps,
     * divided by the world size, the optimizer step on it, and the step's copies dropped.
     */
    void finish(AdamW optimizer);

    /** Between steps: the expert weights and optimizer state this rank keeps, as slices of whole tensors. */
    List<TensorSlice> checkpointSlices();

    /** Between steps: takes what this rank keeps under its layout from a checkpoint written at any world size. */
    void restore(TrainingState state);
}
