package dev.ballast.trainer.moe;

/**
 * The rows one expert computes for one layer: row r is the input of routing slot slots[r] (slots ascending, so
 * the batch is a pure function of the routing). input is rows x dim. This is the unit a distributed runtime sends to
 * the rank that holds the expert (or a replica or a materialized shard of it).
 */
public record ExpertBatch(int layer, int expert, int[] slots, float[] input, int dim) {

    public ExpertBatch {
        if (input.length != slots.length * dim) {
            throw new IllegalArgumentException("expert " + expert + ": " + slots.length + " rows of " + dim
                    + " need " + slots.length * dim + " floats, got " + input.length);
        }
    }

    public int rows() {
        return slots.length;
    }
}
