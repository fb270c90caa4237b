package dev.ballast.trainer.parallel;

import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Plan;
import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.checkpoint.Checkpointable;
import dev.ballast.trainer.checkpoint.DataStream;
import dev.ballast.trainer.checkpoint.TensorSlice;
import dev.ballast.trainer.checkpoint.TrainingState;
import dev.ballast.trainer.data.Batch;
import dev.ballast.trainer.data.BatchSampler;
import dev.ballast.trainer.data.ByteCorpus;
import dev.ballast.trainer.model.MoeModel;
import dev.ballast.trainer.model.Param;
import dev.ballast.trainer.model.StepResult;
import dev.ballast.trainer.optim.AdamState;
import dev.ballast.trainer.optim.AdamW;
import dev.ballast.trainer.train.TrainerConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One rank of a data- and expert-parallel run. Every rank builds the whole model from the seed (identical initial
 * weights), draws its own batches (seed {@link #dataSeed}), keeps the dense parameters in step with the others by
 * all-reducing their gradients (SUM in rank order, then / W) and leaves the experts to its {@link ExpertStore}
 * (gradients summed over all ranks' rows and copies, divided by W the same way, updated where they are kept). The objective is the mean loss over all
 * ranks' tokens, so W ranks of B tokens train like one process on the W B tokens.
 */
public final class RankTrainer implements Checkpointable {

    private final Backend backend;
    private final TimedComm comm;
    private final MoeModel model;
    private final ExpertParallelExecutor executor;
    private final ExpertStore store;
    private BatchSampler sampler;
    private final AdamW optimizer;
    private final List<Param> dense;
    private final Map<Param, AdamState> states = new LinkedHashMap<>();
    private int step;

    /**
     * config.batchTokens() is this rank's share; node: the pod of each rank (the quota rule's locality, and the
     * owners of a node-sharded expert); mode: where expert state lives (replicate: at the static owners; FSSDP:
     * sharded as each plan's layout says, over all ranks until a plan says otherwise).
     */
    public RankTrainer(TrainerConfig config, ByteCorpus corpus, Backend backend, TimedComm comm, int[] node,
                       Mode mode) {
        this.backend = backend;
        this.comm = comm;
        this.model = new MoeModel(config.model(), config.seed());
        this.store = mode == Mode.FSSDP ? new ShardedExperts(comm, model.experts(), node)
                : new ReplicatedExperts(comm, model.experts());
        this.executor = new ExpertParallelExecutor(backend, comm, store, config.model().layers(),
                config.model().experts(), node);
        this.sampler = new BatchSampler(corpus, config.model().window(), config.batchTokens(),
                dataSeed(config.seed(), comm.rank()));
        this.optimizer = new AdamW(config.optimizer());
        this.dense = model.denseParams();
        for (Param p : dense) {
            states.put(p, new AdamState(p.size()));
        }
    }

    /** Rank r's batch seed: rank 0 draws what a single process with this seed draws. */
    public static long dataSeed(long seed, int rank) {
        return seed + 1_000_003L * rank;
    }

    public MoeModel model() {
        return model;
    }

    public ExpertParallelExecutor executor() {
        return executor;
    }

    @Override
    public int completedSteps() {
        return step;
    }

    /** Rank 0 the dense tensors (identical on every rank after the all-reduce), each rank the experts it keeps. */
    @Override
    public List<TensorSlice> checkpointSlices() {
        List<TensorSlice> out = new ArrayList<>(comm.rank() == 0 ? TensorSlice.of(states) : List.of());
        out.addAll(store.checkpointSlices());
        return out;
    }

    @Override
    public DataStream dataStream() {
        return sampler.stream();
    }

    /** Stream r continues where rank r of the writing world left it; a rank the writer did not have starts fresh. */
    @Override
    public void restore(TrainingState state) {
        state.restore(states);
        store.restore(state);
        if (comm.rank() < state.streams().size()) {
            sampler = sampler.resume(state.streams().get(comm.rank()));
        }
        step = state.step();
    }

    /** One step under plan (null: the static layout); every rank must pass the same plan. */
    public RankStepLog step(Plan plan) {
        return step(plan, sampler.next());
    }

    /** One step on the given batch (tests and callers with their own data). */
    public RankStepLog step(Plan plan, Batch batch) {
        long wall = System.nanoTime();
        long cpu = TimedComm.threadCpuNanos();
        long exWall = comm.wallNanos();
        long exCpu = comm.cpuNanos();
        long expertCpu = executor.expertCpuNanos();
        model.zeroGrad();
        executor.beginStep(plan);
        StepResult result = model.forwardBackward(backend, executor, batch);
        executor.finishStep(optimizer);
        averageDenseGradients();
        states.forEach(optimizer::update);
        double loss = comm.allReduceSum(new double[] {result.loss()})[0] / comm.worldSize();
        int[][] counts = new int[model.blocks().size()][];
        for (int l = 0; l < counts.length; l++) {
            counts[l] = executor.globalCounts(l);
        }
        long stepNanos = System.nanoTime() - wall;
        long compute = TimedComm.threadCpuNanos() - cpu - (comm.cpuNanos() - exCpu);
        return new RankStepLog(++step, comm.rank(), loss, batch.tokens() * comm.worldSize(), compute,
                comm.wallNanos() - exWall, executor.expertCpuNanos() - expertCpu, stepNanos, counts,
                rankCounts(result));
    }

    private static long[][] rankCounts(StepResult result) {
        long[][] c = new long[result.routing().size()][];
        for (int l = 0; l < c.length; l++) {
            c[l] = Arrays.stream(result.routing().get(l).counts()).asLongStream().toArray();
        }
        return c;
    }

    /** All dense gradients in one all-reduce (SUM, ascending rank order: the same bits on every rank), then / W. */
    private void averageDenseGradients() {
        int n = 0;
        for (Param p : dense) {
            n += p.size();
        }
        float[] flat = new float[n];
        int at = 0;
        for (Param p : dense) {
            System.arraycopy(p.grad(), 0, flat, at, p.size());
            at += p.size();
        }
        float[] sum = comm.allReduceSum(flat);
        float w = comm.worldSize();
        at = 0;
        for (Param p : dense) {
            float[] g = p.grad();
            for (int i = 0; i < g.length; i++) {
                g[i] = sum[at + i] / w;
            }
            at += p.size();
        }
    }
}
