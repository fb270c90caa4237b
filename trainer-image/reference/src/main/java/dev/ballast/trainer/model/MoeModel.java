package dev.ballast.trainer.model;

import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.data.Batch;
import dev.ballast.trainer.moe.ExpertExecutor;
import dev.ballast.trainer.moe.ExpertParams;
import dev.ballast.trainer.moe.LocalExpertExecutor;
import dev.ballast.trainer.moe.Routing;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * The byte-level MoE language model: window embedding, a stack of MoE blocks, output head. It owns the dense
 * parameters (replicated on every rank in data parallelism) and, for a single process, every expert; a distributed
 * runtime builds it with its own {@link ExpertExecutor} and keeps only the experts its plan places on the rank.
 */
public final class MoeModel {

    private final ModelConfig config;
    private final WindowEmbedding embedding;
    private final List<MoeBlock> blocks;
    private final OutputHead head;
    private final List<List<ExpertParams>> experts;

    /** Initialised from seed: the same seed gives the same weights, bit for bit. */
    public MoeModel(ModelConfig config, long seed) {
        this.config = config;
        Random random = new Random(seed);
        this.embedding = new WindowEmbedding(config.window(), config.dim());
        embedding.init(random);
        List<MoeBlock> bs = new ArrayList<>();
        List<List<ExpertParams>> ex = new ArrayList<>();
        for (int l = 0; l < config.layers(); l++) {
            MoeBlock block = new MoeBlock(l, config);
            block.gate().weight().fillGaussian(random, 1.0 / Math.sqrt(config.dim()));
            bs.add(block);
            List<ExpertParams> layer = new ArrayList<>();
            for (int e = 0; e < config.experts(); e++) {
                ExpertParams p = new ExpertParams(l, e, config.dim(), config.ffnDim());
                p.init(random, config.layers());
                layer.add(p);
            }
            ex.add(Collections.unmodifiableList(layer));
        }
        this.blocks = Collections.unmodifiableList(bs);
        this.head = new OutputHead(config.dim());
        head.init(random);
        this.experts = Collections.unmodifiableList(ex);
    }

    public ModelConfig config() {
        return config;
    }

    public List<MoeBlock> blocks() {
        return blocks;
    }

    /** experts().get(layer).get(e). */
    public List<List<ExpertParams>> experts() {
        return experts;
    }

    /** Everything that is not an expert, in a fixed order: embedding, per layer norm and gate, final norm, head. */
    public List<Param> denseParams() {
        List<Param> ps = new ArrayList<>();
        ps.add(embedding.table());
        for (MoeBlock b : blocks) {
            ps.add(b.norm().gain());
            ps.add(b.gate().weight());
        }
        ps.add(head.norm().gain());
        ps.add(head.weight());
        return ps;
    }

    /** Dense parameters, then every expert's tensors by layer and expert. */
    public List<Param> allParams() {
        List<Param> ps = denseParams();
        experts.forEach(layer -> layer.forEach(e -> ps.addAll(e.params())));
        return ps;
    }

    public void zeroGrad() {
        allParams().forEach(Param::zeroGrad);
    }

    /** Runs every expert here. */
    public LocalExpertExecutor localExecutor(Backend backend) {
        return new LocalExpertExecutor(backend, experts);
    }

    /** Forward only: the loss and the routing. */
    public StepResult loss(Backend backend, ExpertExecutor executor, Batch batch) {
        return run(backend, executor, batch, false);
    }

    /** Forward and backward: gradients are added to the parameters' grad arrays (zero them first). */
    public StepResult forwardBackward(Backend backend, ExpertExecutor executor, Batch batch) {
        return run(backend, executor, batch, true);
    }

    private StepResult run(Backend backend, ExpertExecutor executor, Batch batch, boolean grads) {
        if (batch.window() != config.window()) {
            throw new IllegalArgumentException("batch window " + batch.window() + " != model window "
                    + config.window());
        }
        int tokens = batch.tokens();
        float[] h = embedding.forward(batch.context(), tokens);
        List<MoeBlock.State> states = new ArrayList<>(blocks.size());
        List<Routing> routing = new ArrayList<>(blocks.size());
        for (MoeBlock block : blocks) {
            MoeBlock.State s = block.forward(backend, executor, h, tokens);
            states.add(s);
            routing.add(s.routing());
            h = s.out();
        }
        OutputHead.Result r = head.loss(backend, h, batch.target(), tokens, grads);
        if (grads) {
            float[] dh = r.dh();
            for (int l = blocks.size() - 1; l >= 0; l--) {
                dh = blocks.get(l).backward(backend, executor, states.get(l), dh);
            }
            embedding.backward(batch.context(), tokens, dh);
        }
        return new StepResult(r.loss(), List.copyOf(routing));
    }
}
