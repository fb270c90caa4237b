package dev.ballast.trainer.moe;

import java.util.List;

/**
 * Where expert compute happens: the seam between the model and expert parallelism. The model hands over one batch
 * per expert (list index = expert id) and gets back one output per batch; in the backward pass it hands over dL/dy
 * per expert and gets dL/dx per expert. A local executor runs every expert itself; a distributed one sends each
 * batch to the rank that owns, replicates or materializes that expert and keeps the activations there.
 */
public interface ExpertExecutor {

    List<float[]> forward(int layer, List<ExpertBatch> batches);

    /** Called once per forward of the same layer, in reverse layer order; accumulates the experts' gradients. */
    List<float[]> backward(int layer, List<float[]> dOutputs);
}
