package dev.ballast.trainer.parallel;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.trainer.backend.JavaBackend;
import dev.ballast.trainer.checkpoint.TensorSlice;
import dev.ballast.trainer.data.ByteCorpus;
import dev.ballast.trainer.model.ModelConfig;
import dev.ballast.trainer.optim.AdamWConfig;
import dev.ballast.trainer.train.TrainerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * FSSDP with node shards: W = 4 ranks on 2 pods of 2 (node table 0, 0, 1, 1), so experts 0-3 are at home on node 0
 * and 4-7 on node 1, and a node-sharded expert's 990 floats are split 495 / 495 over its shard node's two ranks (its
 * home node's, or the other node's where the plan names a rank there). The
 * layout only decides where each element's weights and moments are kept: gathers are exact, the reduce-scatter sums
 * each element over the ranks in rank order whoever keeps it, and AdamW is elementwise, so every layout, and every
 * switch between layouts, must train the same bits as the even one.
 */
class NodeShardedExpertsTest {

    private static final ModelConfig MODEL = new ModelConfig(4, 15, 33, 2, 8, 2);
    private static final int PODS = 2;
    private static final int RANKS_PER_POD = 2;
    private static final int W = PODS * RANKS_PER_POD;
    private static final int EXPERT_SIZE = 2 * 15 * 33;
    private static final int STEPS = 12;
    private static final ByteCorpus CORPUS = ByteCorpus.load(ByteCorpus.DEFAULT);
    private static final TrainerConfig CONFIG = new TrainerConfig(MODEL, AdamWConfig.defaults(), ByteCorpus.DEFAULT,
            STEPS, 32, 5, "java");
    /** Copies off the home ranks and across the nodes, so node shards are gathered from the other node too. */
    private static final int[][][] PLACEMENT = {
        {{0, 1, 6}, {2, 3, 4}, {4, 5, 0}, {6, 7, 1}},
        {{0, 1, 5}, {2, 3, 7}, {4, 5, 2}, {6, 7, 3}}};
    private static final int[][] NONE = {{}, {}};
    private static final int[][] SET_A = {{0, 4, 6}, {1, 2, 5, 7}};
    /** Against A: layer 0's expert 0 stays node-sharded, 4 and 6 go back to even, 1, 2 and 5 are new. */
    private static final int[][] SET_B = {{0, 1, 2, 5}, {2, 3, 6}};
    /**
     * Against B, shard ranks away from home: layer 0's experts 0 and 1 move to node 1 (named by ranks 2 and 3), 5 to
     * node 0, 2 stays home, 6 is new on node 0; layer 1's 3 moves to node 1, 2 and 6 stay, 4 is new on node 0.
     */
    private static final int[][] AWAY = {{2, 3, 1, -1, -1, 0, 0, -1}, {-1, -1, 1, 2, 0, -1, 3, -1}};

    /** What a rank ends with: its losses, the expert floats it keeps after each step, its final slices. */
    private record RankRun(List<Double> losses, List<Map<String, Integer>> keptAfterStep, List<TensorSlice> slices) {
    }

    @Test
    void nodeShardsKeepEachExpertOnItsHomeNodeAndTrainTheSameBitsAsTheEvenLayout() {
        Plan even = plan(1, NONE);
        Plan nodes = plan(2, SET_A);
        List<RankRun> evenRun = distributed(step -> even);
        List<RankRun> nodeRun = distributed(step -> nodes);

        for (int s = 0; s < STEPS; s++) {
            assertKept(evenRun, s, home(NONE));
            assertKept(nodeRun, s, home(SET_A));
        }
        assertSameLossBitsOnEveryRank(nodeRun, evenRun.get(0).losses());
        assertSameState(whole(nodeRun), whole(evenRun));
    }

    @Test
    void switchingLayoutsMidRunTrainsTheSameBitsAsNeverSwitching() {
        Plan even = plan(1, NONE);
        Plan a = plan(2, SET_A);
        Plan b = plan(3, SET_B);
        Plan away = planOver(4, AWAY);
        Plan evenAgain = plan(5, NONE);
        // Two or three steps each: the moments and step counts moved at each switch are those of a run in progress.
        List<RankRun> switching = distributed(step -> step < 2 ? even : step < 5 ? a : step < 7 ? b : step < 10 ? away
                : evenAgain);
        List<RankRun> never = distributed(step -> even);

        assertKept(switching, 1, home(NONE));
        assertKept(switching, 4, home(SET_A));
        assertKept(switching, 6, home(SET_B));
        assertKept(switching, 9, AWAY);
        assertKept(switching, 11, home(NONE));
        assertSameLossBitsOnEveryRank(switching, never.get(0).losses());
        assertSameState(whole(switching), whole(never));
    }

    /** PLACEMENT with layer l's experts nodeSharded[l] sharded over their home node. */
    private static Plan plan(long sequence, int[][] nodeSharded) {
        return planOver(sequence, home(nodeSharded));
    }

    /** PLACEMENT with layer l's expert e sharded over the node of rank shardRanks[l][e] (-1: over every rank). */
    private static Plan planOver(long sequence, int[][] shardRanks) {
        LayerPlacement[][] p = new LayerPlacement[PLACEMENT.length][];
        for (int l = 0; l < PLACEMENT.length; l++) {
            p[l] = new LayerPlacement[] {LayerPlacement.of(MODEL.experts(), PLACEMENT[l]).withShardRanks(shardRanks[l])};
        }
        return new Plan(new PlanVersion(1, sequence), 0, Mode.FSSDP, "test", MODEL.experts(),
                new Parallelism(W, 1, 1), p);
    }

    /** Per layer, each expert's shard rank: its static home for the experts in nodeSharded[l], else -1. */
    private static int[][] home(int[][] nodeSharded) {
        int[][] ranks = new int[nodeSharded.length][MODEL.experts()];
        for (int l = 0; l < nodeSharded.length; l++) {
            java.util.Arrays.fill(ranks[l], -1);
            for (int e : nodeSharded[l]) {
                ranks[l][e] = e * W / MODEL.experts();
            }
        }
        return ranks;
    }

    private static List<RankRun> distributed(IntFunction<Plan> planOfStep) {
        try (PodRanks world = PodRanks.local(PODS, RANKS_PER_POD, Duration.ofSeconds(60))) {
            assertThat(world.nodeOfRank()).containsExactly(0, 0, 1, 1);
            return world.run((comm, node) -> {
                RankTrainer t = new RankTrainer(CONFIG, CORPUS, JavaBackend.create(), new TimedComm(comm), node,
                        Mode.FSSDP);
                List<Double> losses = new ArrayList<>();
                List<Map<String, Integer>> kept = new ArrayList<>();
                for (int s = 0; s < STEPS; s++) {
                    losses.add(t.step(planOfStep.apply(s)).loss());
                    kept.add(expertFloats(t.checkpointSlices()));
                }
                return new RankRun(losses, kept, t.checkpointSlices());
            });
        }
    }

    /** Floats of each expert ("layer0.expert3") among the slices. */
    private static Map<String, Integer> expertFloats(List<TensorSlice> slices) {
        Map<String, Integer> out = new TreeMap<>();
        for (TensorSlice s : slices) {
            if (s.name().contains(".expert")) {
                out.merge(s.name().substring(0, s.name().lastIndexOf('.')), s.data().length, Integer::sum);
            }
        }
        return out;
    }

    /**
     * After the step, each node-sharded expert is kept by its shard node's ranks only, half each; every other expert
     * by every rank, 247 or 248 floats.
     */
    private static void assertKept(List<RankRun> runs, int step, int[][] shardRanks) {
        for (int l = 0; l < MODEL.layers(); l++) {
            for (int e = 0; e < MODEL.experts(); e++) {
                boolean byNode = shardRanks[l][e] >= 0;
                int shardNode = shardRanks[l][e] / RANKS_PER_POD;
                for (int g = 0; g < W; g++) {
                    int kept = runs.get(g).keptAfterStep().get(step).getOrDefault("layer" + l + ".expert" + e, 0);
                    String what = "step " + (step + 1) + ": rank " + g + "'s floats of layer " + l + " expert " + e;
                    if (!byNode) {
                        assertThat(kept).as(what).isBetween(EXPERT_SIZE / W, EXPERT_SIZE / W + 1);
                    } else if (g / RANKS_PER_POD == shardNode) {
                        assertThat(kept).as(what).isEqualTo(EXPERT_SIZE / RANKS_PER_POD);
                    } else {
                        assertThat(kept).as(what).isZero();
                    }
                }
            }
        }
    }

    private static void assertSameLossBitsOnEveryRank(List<RankRun> runs, List<Double> expected) {
        for (RankRun r : runs) {
            assertThat(r.losses()).isEqualTo(expected);
        }
    }

    /** Every rank's slices laid into whole tensors (rank 0's dense ones, each rank's shards of the experts). */
    private static Map<String, TensorSlice> whole(List<RankRun> runs) {
        Map<String, TensorSlice> out = new TreeMap<>();
        for (RankRun r : runs) {
            for (TensorSlice s : r.slices()) {
                int n = s.rows() * s.cols();
                TensorSlice w = out.computeIfAbsent(s.name(), name -> new TensorSlice(name, s.rows(), s.cols(), 0,
                        new float[n], new float[n], new float[n], s.steps()));
                assertThat(s.steps()).as("AdamW steps of " + s.name()).isEqualTo(w.steps());
                System.arraycopy(s.data(), 0, w.data(), s.from(), s.data().length);
                System.arraycopy(s.m(), 0, w.m(), s.from(), s.m().length);
                System.arraycopy(s.v(), 0, w.v(), s.from(), s.v().length);
            }
        }
        return out;
    }

    /** The same weights, moments and AdamW step counts, bit for bit. */
    private static void assertSameState(Map<String, TensorSlice> actual, Map<String, TensorSlice> expected) {
        assertThat(actual.keySet()).isEqualTo(expected.keySet());
        expected.forEach((name, t) -> {
            TensorSlice a = actual.get(name);
            assertThat(a.data()).as(name + " weights").containsExactly(t.data());
            assertThat(a.m()).as(name + " m").containsExactly(t.m());
            assertThat(a.v()).as(name + " v").containsExactly(t.v());
            assertThat(a.steps()).as(name + " AdamW steps").isEqualTo(t.steps());
        });
    }
}
