package dev.ballast.trainer.model;

import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.moe.Combine;
import dev.ballast.trainer.moe.Dispatch;
import dev.ballast.trainer.moe.ExpertBatch;
import dev.ballast.trainer.moe.ExpertExecutor;
import dev.ballast.trainer.moe.Gate;
import dev.ballast.trainer.moe.Routing;
import java.util.List;

/** out = h + MoE(RMSNorm(h)): pre-norm, gate and top-k routing, dispatch, experts (by the executor), combine. */
public final class MoeBlock {

    private final int layer;
    private final int dim;
    private final RmsNorm norm;
    private final Gate gate;

    MoeBlock(int layer, ModelConfig config) {
        this.layer = layer;
        this.dim = config.dim();
        this.norm = new RmsNorm("layer" + layer + ".norm", config.dim());
        this.gate = new Gate("layer" + layer + ".gate", config.dim(), config.experts(), config.topK(),
                config.routingSkew());
    }

    public RmsNorm norm() {
        return norm;
    }

    public Gate gate() {
        return gate;
    }

    /** What the backward pass reuses. */
    public record State(int tokens, float[] input, RmsNorm.Output normed, Routing routing, List<ExpertBatch> batches,
                        List<float[]> outputs, float[] out) {
    }

    public State forward(Backend backend, ExpertExecutor executor, float[] h, int tokens) {
        RmsNorm.Output normed = norm.forward(h, tokens);
        Routing routing = gate.route(backend, normed.y(), tokens);
        List<ExpertBatch> batches = Dispatch.batches(layer, routing, normed.y(), dim);
        List<float[]> outputs = executor.forward(layer, batches);
        float[] out = Combine.forward(h, routing, batches, outputs, dim);
        return new State(tokens, h, normed, routing, batches, outputs, out);
    }

    /** Returns dL/dh; accumulates the norm's, the gate's and (through the executor) the experts' gradients. */
    public float[] backward(Backend backend, ExpertExecutor executor, State s, float[] dOut) {
        Combine.Grads g = Combine.backward(dOut, s.routing(), s.batches(), s.outputs(), dim);
        List<float[]> dInputs = executor.backward(layer, g.dOutputs());
        float[] dNormed = new float[s.tokens() * dim];
        Combine.addInputGrads(s.routing(), s.batches(), dInputs, dNormed, dim);
        gate.backward(backend, s.normed().y(), s.routing(), g.dWeight(), dNormed);
        float[] dh = norm.backward(s.input(), s.normed(), dNormed, s.tokens());
        for (int i = 0; i < dh.length; i++) {
            dh[i] += dOut[i];
        }
        return dh;
    }
}
