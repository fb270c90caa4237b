package dev.ballast.trainer.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

import dev.ballast.client.SidecarApi;
import dev.ballast.client.StepLoads;
import dev.ballast.contracts.plan.PlanHeads;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.trainer.loop.AdoptedStep;
import dev.ballast.trainer.loop.RoutingTrace;
import dev.ballast.trainer.parallel.PodRanks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loop in one JVM: 2 pods of 2 ranks, each pod with its own (fake) sidecar. Pod 0's sidecar holds plan 1.1 from
 * step 4, pod 1's only from step 6: the MIN all-reduce over both pods' ranks must make all four adopt it at step 6.
 */
class SidecarLoopTest {

    private static final int PODS = 2;
    private static final int RANKS_PER_POD = 2;
    private static final int W = PODS * RANKS_PER_POD;
    private static final int STEPS = 10;
    private static final int BATCH = 32;
    private static final int LAYERS = 2;
    private static final int EXPERTS = 8;
    private static final int TOP_K = 2;
    private static final Map<String, String> FLAGS = Map.of("steps", "" + STEPS, "batch", "" + BATCH, "window", "4",
            "dim", "15", "ffn-dim", "33", "layers", "" + LAYERS, "experts", "" + EXPERTS, "top-k", "" + TOP_K,
            "seed", "5", "backend", "java");
    private static final PlanVersion V11 = new PlanVersion(PodRanks.LOCAL_GENERATION, 1);
    private static final PlanVersion STATIC = new PlanVersion(PodRanks.LOCAL_GENERATION, 0);
    /** Replicas keep every expert's home (replicate mode), so the math is the static layout's within rounding. */
    private static final Plan PLAN = new Plan(V11, 0, Mode.REPLICATE, "test", EXPERTS, new Parallelism(W, 1, 1),
            new LayerPlacement[][] {
                {LayerPlacement.of(EXPERTS, new int[][] {{0, 1, 6}, {2, 3}, {4, 5, 0}, {6, 7, 1}})},
                {LayerPlacement.of(EXPERTS, new int[][] {{0, 1}, {2, 3, 7}, {4, 5, 0, 1}, {6, 7}})}});

    /** A pod's sidecar that holds PLAN from step `from` on and keeps every report it gets. */
    private static final class FakeSidecar implements SidecarApi {
        final long from;
        final ConcurrentLinkedQueue<StepLoads> reports = new ConcurrentLinkedQueue<>();

        FakeSidecar(long from) {
            this.from = from;
        }

        @Override
        public void report(StepLoads report) {
            reports.add(report);
        }

        @Override
        public PlanHeads heads(long generation, long step) {
            assertThat(generation).isEqualTo(PodRanks.LOCAL_GENERATION);
            return step >= from ? new PlanHeads(V11, V11) : PlanHeads.EMPTY;
        }

        @Override
        public Optional<Plan> plan(PlanVersion version) {
            return version.equals(V11) ? Optional.of(PLAN) : Optional.empty();
        }
    }

    @Test
    void everyRankOfEveryPodAdoptsThePlanAtTheSameStepReportsItsRoutingAndTrainsOn(@TempDir Path dir)
            throws IOException {
        FakeSidecar[] sidecars = {new FakeSidecar(4), new FakeSidecar(6)};
        Path trace = dir.resolve("routing.jsonl");
        Map<String, String> flags = new java.util.HashMap<>(FLAGS);
        flags.put("trace", trace.toString());
        List<List<AdoptedStep>> loop;
        List<List<AdoptedStep>> stat;
        try (PodRanks pods = PodRanks.local(PODS, RANKS_PER_POD, Duration.ofSeconds(60))) {
            loop = DistributedTrainMain.run(flags, pods, pod -> sidecars[pod]);
            stat = DistributedTrainMain.run(FLAGS, pods, null);
        }

        for (List<AdoptedStep> rank : loop) {
            assertThat(rank).extracting(AdoptedStep::adopted)
                    .containsExactly(STATIC, STATIC, STATIC, STATIC, STATIC, V11, V11, V11, V11, V11);
            assertThat(rank).extracting(AdoptedStep::loss).containsExactlyElementsOf(
                    loop.get(0).stream().map(AdoptedStep::loss).toList());
        }
        // Before the plan the static run's bits; after it the same curve within rounding (gradient sums reordered).
        List<Double> staticLoss = stat.get(0).stream().map(AdoptedStep::loss).toList();
        for (int s = 0; s < STEPS; s++) {
            double loss = loop.get(0).get(s).loss();
            if (s < 5) {
                assertThat(loss).as("loss of step %d", s + 1).isEqualTo(staticLoss.get(s));
            } else {
                assertThat(loss).as("loss of step %d", s + 1).isCloseTo(staticLoss.get(s),
                        offset(1e-6 * staticLoss.get(s)));
            }
        }
        assertThat(staticLoss.get(STEPS - 1)).isLessThan(staticLoss.get(0));

        // Every rank reports every step to its own pod's sidecar: its tokens' counts, with the plan it used and its times.
        for (int pod = 0; pod < PODS; pod++) {
            List<StepLoads> got = sidecars[pod].reports.stream()
                    .sorted(Comparator.comparingLong(StepLoads::step).thenComparingInt(StepLoads::gpuRank)).toList();
            assertThat(got).hasSize(RANKS_PER_POD * STEPS);
            for (StepLoads r : got) {
                assertThat(r.gpuRank() / RANKS_PER_POD).as("pod of the reporting rank").isEqualTo(pod);
                assertThat(r.worldGeneration()).isEqualTo(PodRanks.LOCAL_GENERATION);
                assertThat(r.firstLayer()).isZero();
                assertThat(r.adopted()).isEqualTo(r.step() < 6 ? null : V11);
                assertThat(r.timing()).as("the step's wall time and the rank's compute time").isNotNull();
                assertThat(r.timing().stepNanos()).isPositive();
                assertThat(r.timing().computeNanos()).isPositive();
                assertThat(r.counts()).hasNumberOfRows(LAYERS);
                for (long[] layer : r.counts()) {
                    assertThat(layer).hasSize(EXPERTS);
                    assertThat(Arrays.stream(layer).sum()).isEqualTo((long) BATCH * TOP_K);
                }
            }
            assertThat(got).extracting(StepLoads::step).containsOnly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
        }

        // The trace holds the same counts, one source per rank.
        List<String> lines = Files.readAllLines(trace);
        assertThat(lines.get(0)).isEqualTo("{\"format\":\"" + RoutingTrace.FORMAT + "\",\"model\":\"ballast-reference\","
                + "\"layers\":2,\"experts\":8,\"sources\":4,\"topK\":2,\"origin\":\"ballast reference trainer, seed 5, "
                + "batch 32 per rank, replicate, routing-skew 0.0\"}");
        assertThat(lines).hasSize(1 + STEPS * LAYERS * W);
        Map<String, String> byKey = lines.stream().skip(1).collect(Collectors.toMap(
                l -> l.substring(0, l.indexOf(",\"counts\"")), l -> l.substring(l.indexOf("[")), (a, b) -> a));
        for (FakeSidecar sidecar : sidecars) {
            for (StepLoads r : sidecar.reports) {
                for (int l = 0; l < LAYERS; l++) {
                    String key = "{\"step\":" + r.step() + ",\"layer\":" + l + ",\"source\":" + r.gpuRank();
                    assertThat(byKey.get(key)).as(key).isEqualTo(Arrays.stream(r.counts()[l]).mapToObj(Long::toString)
                            .collect(Collectors.joining(",", "[", "]}")));
                }
            }
        }
    }
}
