package dev.ballast.trainer.moe;

import dev.ballast.trainer.backend.Backend;
import java.util.ArrayList;
import java.util.List;

/** Runs every expert in this thread, in expert order, and keeps each layer's activations until its backward. */
public final class LocalExpertExecutor implements ExpertExecutor {

    private final Backend backend;
    private final List<List<ExpertParams>> experts;
    private final List<List<ExpertActivations>> saved;

    /** experts.get(layer).get(e): the parameters of expert e of that layer. */
    public LocalExpertExecutor(Backend backend, List<List<ExpertParams>> experts) {
        this.backend = backend;
        this.experts = experts;
        this.saved = new ArrayList<>();
        for (int l = 0; l < experts.size(); l++) {
            saved.add(null);
        }
    }

    @Override
    public List<float[]> forward(int layer, List<ExpertBatch> batches) {
        List<ExpertActivations> acts = new ArrayList<>(batches.size());
        List<float[]> outputs = new ArrayList<>(batches.size());
        for (ExpertBatch b : batches) {
            ExpertActivations a = ExpertFfn.forward(backend, experts.get(layer).get(b.expert()), b.input(), b.rows());
            acts.add(a);
            outputs.add(a.y());
        }
        saved.set(layer, acts);
        return outputs;
    }

    @Override
    public List<float[]> backward(int layer, List<float[]> dOutputs) {
        List<ExpertActivations> acts = saved.get(layer);
        if (acts == null) {
            throw new IllegalStateException("backward of layer " + layer + " without its forward");
        }
        saved.set(layer, null);
        List<float[]> dInputs = new ArrayList<>(acts.size());
        for (int e = 0; e < acts.size(); e++) {
            dInputs.add(ExpertFfn.backward(backend, experts.get(layer).get(e), acts.get(e), dOutputs.get(e)));
        }
        return dInputs;
    }
}
