package dev.ballast.trainer.parallel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.trainer.backend.Backend;
import dev.ballast.trainer.backend.JavaBackend;
import dev.ballast.trainer.data.Batch;
import dev.ballast.trainer.data.BatchSampler;
import dev.ballast.trainer.data.ByteCorpus;
import dev.ballast.trainer.model.ModelConfig;
import dev.ballast.trainer.model.MoeModel;
import dev.ballast.trainer.model.Param;
import dev.ballast.trainer.moe.ExpertParams;
import dev.ballast.trainer.optim.AdamState;
import dev.ballast.trainer.optim.AdamW;
import dev.ballast.trainer.optim.AdamWConfig;
import dev.ballast.trainer.train.TrainerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * W = 4 ranks on 2 pods (2 rank threads each, gRPC between the pods) against one process training on the union of
 * the ranks' batches; replicate and FSSDP plans (with a plan change mid-run) against the static layout. dim 15 and
 * ffn 33 make an expert 990 floats, so FSSDP's shards are uneven (247, 248, 247, 248).
 */
class ExpertParallelTest {

    private static final ModelConfig MODEL = new ModelConfig(4, 15, 33, 2, 8, 2);
    private static final int PODS = 2;
    private static final int RANKS_PER_POD = 2;
    private static final int W = PODS * RANKS_PER_POD;
    private static final int BATCH = 32;
    private static final int STEPS = 12;
    private static final long SEED = 5;
    private static final ByteCorpus CORPUS = ByteCorpus.load(ByteCorpus.DEFAULT);
    private static final TrainerConfig CONFIG = new TrainerConfig(MODEL, AdamWConfig.defaults(), ByteCorpus.DEFAULT,
            STEPS, BATCH, SEED, "java");
    /** Loss curves of runs whose gradients are summed in another order, relative (measured: 5e-9 over 12 steps). */
    private static final double CURVE_TOLERANCE = 1e-6;

    /** What every rank ends with: its losses by step, its model, and rows it computed on replicas. */
    private record RankRun(int rank, List<Double> losses, MoeModel model, int replicaRows) {
    }

    @Test
    void staticExpertParallelismTrainsLikeOneProcessOnTheUnionOfTheBatches() {
        List<RankRun> ranks = distributed(Mode.REPLICATE, step -> null, 1);
        MoeModel single = new MoeModel(MODEL, SEED);
        List<Double> singleLosses = trainSingle(single, 1);

        // After one step the experts' weights are the same bits: each owner stacks its rows in source-rank order,
        // which is the union's slot order, and W = 4 scales the gradient exactly. Dense gradients are summed per
        // rank and then across ranks (not in one chain over the union): within float tolerance.
        for (RankRun r : ranks) {
            assertThat(r.losses().get(0)).isCloseTo(singleLosses.get(0), offset(1e-12));
            for (int l = 0; l < MODEL.layers(); l++) {
                for (int e = 0; e < MODEL.experts(); e++) {
                    if (e * W / MODEL.experts() == r.rank()) {
                        assertSameBits(r.model().experts().get(l).get(e), single.experts().get(l).get(e));
                    }
                }
            }
            assertClose(r.model().denseParams(), single.denseParams(), 1e-5);
        }

        List<RankRun> longer = distributed(Mode.REPLICATE, step -> null, STEPS);
        List<Double> curve = trainSingle(new MoeModel(MODEL, SEED), STEPS);
        assertSameLossBitsOnEveryRank(longer);
        assertCurvesClose(longer.get(0).losses(), curve);
        assertThat(curve.get(STEPS - 1)).isLessThan(curve.get(0) - 0.5);
    }

    @Test
    void threeShardedRanksOnThreePodsTrainLikeOneProcess() {
        // W = 3: dividing by W is not exact, the shards are 330 floats each, every exchange crosses gRPC.
        List<RankRun> ranks = distributed(3, 1, Mode.FSSDP, step -> null, STEPS);
        assertSameLossBitsOnEveryRank(ranks);
        assertCurvesClose(ranks.get(0).losses(), trainSingle(new MoeModel(MODEL, SEED), 3, STEPS));
    }

    @Test
    void replicasTrainLikeTheStaticLayoutThroughAPlanChange() {
        Plan first = plan(Mode.REPLICATE, 1, new int[][][] {
            {{0, 1, 6}, {2, 3}, {4, 5, 0}, {6, 7, 1}},
            {{0, 1}, {2, 3, 7}, {4, 5, 0, 1}, {6, 7}}});
        Plan second = plan(Mode.REPLICATE, 2, new int[][][] {
            {{0, 1}, {2, 3, 4, 5}, {4, 5}, {6, 7, 2, 3}},
            {{0, 1, 4}, {2, 3, 4}, {4, 5, 6}, {6, 7, 0}}});
        List<RankRun> replicated = distributed(Mode.REPLICATE, step -> step < STEPS / 2 ? first : second, STEPS);
        List<RankRun> stat = distributed(Mode.REPLICATE, step -> null, STEPS);

        assertSameLossBitsOnEveryRank(replicated);
        // Replicas are refreshed bit for bit from their owners and every row's output is per row: the first step's
        // forward is the static one exactly. The owners' gradient sums then differ in order: within tolerance.
        assertThat(replicated.get(0).losses().get(0)).isEqualTo(stat.get(0).losses().get(0));
        assertCurvesClose(replicated.get(0).losses(), stat.get(0).losses());
        assertThat(replicated.stream().mapToInt(RankRun::replicaRows).sum()).as("rows computed on replicas")
                .isPositive();
        assertThat(stat.stream().mapToInt(RankRun::replicaRows).sum()).isZero();
    }

    @Test
    void fssdpGivesTheStaticBitsOnTheStaticLayoutAndTrainsAlikeWithAnyPlacement() {
        List<RankRun> stat = distributed(Mode.REPLICATE, step -> null, STEPS);
        List<RankRun> sharded = distributed(Mode.FSSDP, step -> null, STEPS);
        // One copy per expert: the reduce-scatter adds zeros to the owner's gradient and AdamW is elementwise, so
        // sharded updates are the owner's bits.
        assertThat(sharded.get(0).losses()).isEqualTo(stat.get(0).losses());

        // FSSDP placements need not keep the static homes: expert 0 leaves rank 0, rank 3 takes four experts.
        Plan first = plan(Mode.FSSDP, 1, new int[][][] {
            {{1, 2}, {0, 3}, {4, 5, 6}, {6, 7, 0, 1}},
            {{0, 1}, {2, 3}, {4, 5}, {6, 7}}});
        Plan second = plan(Mode.FSSDP, 2, new int[][][] {
            {{0}, {1, 2, 3}, {4, 5, 7}, {6, 7}},
            {{0, 1, 2}, {3, 4}, {5, 6}, {7, 0}}});
        List<RankRun> moving = distributed(Mode.FSSDP, step -> step < STEPS / 2 ? first : second, STEPS);
        assertSameLossBitsOnEveryRank(moving);
        assertThat(moving.get(0).losses().get(0)).isEqualTo(stat.get(0).losses().get(0));
        assertCurvesClose(moving.get(0).losses(), stat.get(0).losses());
        assertThat(moving.stream().mapToInt(RankRun::replicaRows).sum()).isPositive();
    }

    @Test
    void anOwnerThatComputesNoneOfItsRowsKeepsTheStateAndTrainsLikeTheStaticLayout() {
        // Layer 0: expert 0 runs on rank 1 only (one copy, none on its home), expert 4 on ranks 3 and 0; layer 1:
        // expert 7 only on rank 2. The owners refresh those copies and add up their gradients (EPLB's placements).
        Plan offHome = plan(Mode.REPLICATE, 3, new int[][][] {
            {{1, 4}, {0, 2, 3}, {5}, {6, 7, 4}},
            {{0, 1}, {2, 3}, {4, 5, 7}, {6}}});
        List<RankRun> moved = distributed(Mode.REPLICATE, step -> offHome, STEPS);
        List<RankRun> stat = distributed(Mode.REPLICATE, step -> null, STEPS);
        assertSameLossBitsOnEveryRank(moved);
        assertThat(moved.get(0).losses().get(0)).isEqualTo(stat.get(0).losses().get(0));
        assertCurvesClose(moved.get(0).losses(), stat.get(0).losses());
        assertThat(moved.stream().mapToInt(RankRun::replicaRows).sum()).isPositive();
    }

    @Test
    void aPlanOfAnotherModeOrShapeIsRefused() {
        Plan moved = plan(Mode.REPLICATE, 3, new int[][][] {
            {{1}, {0, 2, 3}, {4, 5}, {6, 7}},
            {{0, 1}, {2, 3}, {4, 5}, {6, 7}}});
        Plan wrongShape = new Plan(new PlanVersion(1, 4), 0, Mode.REPLICATE, "test", MODEL.experts(),
                new Parallelism(2, 2, 1), new LayerPlacement[][] {
                    {LayerPlacement.staticLayout(2, 8), LayerPlacement.staticLayout(2, 8)},
                    {LayerPlacement.staticLayout(2, 8), LayerPlacement.staticLayout(2, 8)}});
        try (PodRanks pods = PodRanks.local(PODS, RANKS_PER_POD, Duration.ofSeconds(30))) {
            // Refused before anything is sent, so the same ranks go on to the next case.
            assertThat(refusals(pods, Mode.FSSDP, moved)).allSatisfy(m ->
                    assertThat(m).contains("is for replicate mode; this run keeps its experts in fssdp mode"));
            assertThat(refusals(pods, Mode.REPLICATE, wrongShape)).allSatisfy(m ->
                    assertThat(m).contains("is for ep=2 dp=2 pp=1; this runtime runs one EP group of all 4 ranks"));
        }
    }

    /** Every rank's error message for a first step under plan. */
    private static List<String> refusals(PodRanks pods, Mode mode, Plan plan) {
        return pods.run((comm, node) -> {
            RankTrainer t = new RankTrainer(CONFIG, CORPUS, JavaBackend.create(), new TimedComm(comm), node, mode);
            try {
                t.step(plan);
                return "no error";
            } catch (IllegalArgumentException e) {
                return e.getMessage();
            }
        });
    }

    private static Plan plan(Mode mode, long sequence, int[][][] layers) {
        LayerPlacement[][] p = new LayerPlacement[layers.length][];
        for (int l = 0; l < layers.length; l++) {
            p[l] = new LayerPlacement[] {LayerPlacement.of(MODEL.experts(), layers[l])};
        }
        return new Plan(new PlanVersion(1, sequence), 0, mode, "test", MODEL.experts(),
                new Parallelism(W, 1, 1), p);
    }

    private static List<RankRun> distributed(Mode mode, IntFunction<Plan> planOfStep, int steps) {
        return distributed(PODS, RANKS_PER_POD, mode, planOfStep, steps);
    }

    private static List<RankRun> distributed(int pods, int ranksPerPod, Mode mode, IntFunction<Plan> planOfStep,
                                             int steps) {
        try (PodRanks world = PodRanks.local(pods, ranksPerPod, Duration.ofSeconds(60))) {
            for (int r = 0; r < pods * ranksPerPod; r++) {
                assertThat(world.nodeOfRank()[r]).as("pod of rank %d", r).isEqualTo(r / ranksPerPod);
            }
            return world.run((comm, node) -> {
                RankTrainer t = new RankTrainer(CONFIG, CORPUS, JavaBackend.create(), new TimedComm(comm), node, mode);
                List<Double> losses = new ArrayList<>();
                int replicaRows = 0;
                for (int s = 0; s < steps; s++) {
                    losses.add(t.step(planOfStep.apply(s)).loss());
                    for (int l = 0; l < MODEL.layers(); l++) {
                        replicaRows += t.executor().replicaRows(l);
                    }
                }
                return new RankRun(comm.rank(), losses, t.model(), replicaRows);
            });
        }
    }

    private static List<Double> trainSingle(MoeModel model, int steps) {
        return trainSingle(model, W, steps);
    }

    /** One process, every expert local, each step on the ranks' batches concatenated in rank order. */
    private static List<Double> trainSingle(MoeModel model, int ranks, int steps) {
        Backend backend = JavaBackend.create();
        List<BatchSampler> samplers = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            samplers.add(new BatchSampler(CORPUS, MODEL.window(), BATCH, RankTrainer.dataSeed(SEED, r)));
        }
        AdamW adam = new AdamW(AdamWConfig.defaults());
        Map<Param, AdamState> states = new LinkedHashMap<>();
        model.allParams().forEach(p -> states.put(p, new AdamState(p.size())));
        List<Double> losses = new ArrayList<>();
        for (int s = 0; s < steps; s++) {
            model.zeroGrad();
            losses.add(model.forwardBackward(backend, model.localExecutor(backend),
                    union(samplers.stream().map(BatchSampler::next).toList())).loss());
            states.forEach(adam::update);
        }
        return losses;
    }

    private static Batch union(List<Batch> batches) {
        int tokens = batches.stream().mapToInt(Batch::tokens).sum();
        int[] context = new int[tokens * MODEL.window()];
        int[] target = new int[tokens];
        int t = 0;
        for (Batch b : batches) {
            System.arraycopy(b.context(), 0, context, t * MODEL.window(), b.context().length);
            System.arraycopy(b.target(), 0, target, t, b.tokens());
            t += b.tokens();
        }
        return new Batch(tokens, MODEL.window(), context, target);
    }

    private static void assertSameLossBitsOnEveryRank(List<RankRun> ranks) {
        for (RankRun r : ranks) {
            assertThat(r.losses()).isEqualTo(ranks.get(0).losses());
        }
    }

    private static void assertCurvesClose(List<Double> actual, List<Double> expected) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int s = 0; s < expected.size(); s++) {
            assertThat(actual.get(s)).as("loss of step %d", s + 1)
                    .isCloseTo(expected.get(s), offset(CURVE_TOLERANCE * expected.get(s)));
        }
    }

    private static void assertSameBits(ExpertParams a, ExpertParams b) {
        for (int t = 0; t < 2; t++) {
            assertThat(a.params().get(t).data()).as(a.params().get(t).name()).containsExactly(b.params().get(t).data());
        }
    }

    private static void assertClose(List<Param> actual, List<Param> expected, double relative) {
        for (int i = 0; i < expected.size(); i++) {
            float[] a = actual.get(i).data();
            float[] b = expected.get(i).data();
            double scale = 1e-6;
            for (float v : b) {
                scale = Math.max(scale, Math.abs(v));
            }
            for (int j = 0; j < b.length; j++) {
                assertThat((double) a[j]).as("%s[%d]", expected.get(i).name(), j)
                        .isCloseTo(b[j], offset(relative * scale));
            }
        }
    }
}
