package dev.ballast.trainer.train;

import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.data.BatchSampler;
import dev.ballast.trainer.data.ByteCorpus;
import dev.ballast.trainer.model.MoeModel;
import dev.ballast.trainer.model.Param;
import dev.ballast.trainer.model.StepResult;
import dev.ballast.trainer.moe.ExpertExecutor;
import dev.ballast.trainer.optim.AdamState;
import dev.ballast.trainer.optim.AdamW;
import java.util.LinkedHashMap;
import java.util.Map;

/** Single-process training: every expert local, one AdamW state per parameter tensor. Deterministic per seed. */
public final class Trainer {

    private final Backend backend;
    private final MoeModel model;
    private final ExpertExecutor executor;
    private final BatchSampler sampler;
    private final AdamW optimizer;
    private final Map<Param, AdamState> states = new LinkedHashMap<>();
    private int step;

    public Trainer(TrainerConfig config, ByteCorpus corpus, Backend backend) {
        this.backend = backend;
        this.model = new MoeModel(config.model(), config.seed());
        this.executor = model.localExecutor(backend);
        this.sampler = new BatchSampler(corpus, config.model().window(), config.batchTokens(), config.seed());
        this.optimizer = new AdamW(config.optimizer());
        for (Param p : model.allParams()) {
            states.put(p, new AdamState(p.size()));
        }
    }

    public MoeModel model() {
        return model;
    }

    public StepLog step() {
        var batch = sampler.next();
        long start = System.nanoTime();
        model.zeroGrad();
        StepResult result = model.forwardBackward(backend, executor, batch);
        states.forEach(optimizer::update);
        long nanos = System.nanoTime() - start;
        int[][] counts = result.routing().stream().map(r -> r.counts().clone()).toArray(int[][]::new);
        return new StepLog(++step, result.loss(), batch.tokens(), nanos, counts);
    }
}
