package dev.ballast.trainer.train;

import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.checkpoint.Checkpointable;
import dev.ballast.trainer.checkpoint.DataStream;
import dev.ballast.trainer.checkpoint.TensorSlice;
import dev.ballast.trainer.checkpoint.TrainingState;
import dev.ballast.trainer.data.BatchSampler;
import dev.ballast.trainer.data.ByteCorpus;
import dev.ballast.trainer.model.MoeModel;
import dev.ballast.trainer.model.Param;
import dev.ballast.trainer.model.StepResult;
import dev.ballast.trainer.moe.ExpertExecutor;
import dev.ballast.trainer.optim.AdamState;
import dev.ballast.trainer.optim.AdamW;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Single-process training: every expert local, one AdamW state per parameter tensor. Deterministic per seed. */
public final class Trainer implements Checkpointable {

    private final Backend backend;
    private final MoeModel model;
    private final ExpertExecutor executor;
    private BatchSampler sampler;
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

    @Override
    public int completedSteps() {
        return step;
    }

    @Override
    public List<TensorSlice> checkpointSlices() {
        return TensorSlice.of(states);
    }

    @Override
    public DataStream dataStream() {
        return sampler.stream();
    }

    /** Every tensor from state; batch stream 0 (a single process is rank 0). */
    @Override
    public void restore(TrainingState state) {
        state.restore(states);
        sampler = sampler.resume(state.streams().get(0));
        step = state.step();
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
