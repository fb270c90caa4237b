package dev.ballast.agent.balancer;

import dev.ballast.agent.sim.TestWorlds;
import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.status.BalancerStatus;
import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.planner.load.LoadHistory;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.contracts.plan.PlanVersion;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The job page's document and the per-GPU loads it shows, without a balancer loop. */
class JobPageJsonTest {
    static final DashboardJson.Identity ID = new DashboardJson.Identity("olmoe", "ml", "b-1");
    static final WorldDocument WORLD = TestWorlds.world("olmoe", 3, 2, TestWorlds.spec(2, 4, 2, 2, 1, 20),
            TestWorlds.worker("olmoe", 0, 0, "n0", "d0", "r0"), TestWorlds.worker("olmoe", 1, 1, "n1", "d0", "r0"));
    static final BalancerStatus STATUS = new BalancerStatus("3.5", 64, 120, 2.25, 1.05, 1.7, null);

    @SuppressWarnings("unchecked")
    static Map<String, Object> parse(String json) {
        return (Map<String, Object>) Json.parse(json);
    }

    static JobPageJson.Activity activity() {
        return new JobPageJson.Activity(true, "", 2, 6, "3.6");
    }

    @Test
    void beforeAnyStepThePageHasTheWorldAndPlanButNoLoads() {
        Map<String, Object> doc = parse(JobPageJson.of(ID, WORLD, activity(), STATUS, new LoadHistory(0.5),
                JobPageJson.GpuView.NONE, List.of(), JobPageJson.InUse.NONE));
        assertThat(doc).containsEntry("job", "olmoe").containsEntry("namespace", "ml").containsEntry("sidecars", 2L)
                .containsEntry("newestPlan", "3.6").containsEntry("gpus", Map.of()).containsEntry("history", List.of())
                .containsEntry("heatmap", Map.of("step", -1L));
        assertThat(doc.get("plan")).isEqualTo(Map.of("version", "3.5", "adoptedAtStep", 120L, "imbalanceBefore", 2.25,
                "imbalanceAfter", 1.05, "predictedSpeedup", 1.7));
        @SuppressWarnings("unchecked")
        Map<String, Object> world = (Map<String, Object>) doc.get("world");
        assertThat(world).containsEntry("generation", 3L).containsEntry("gpus", 4L).containsEntry("layers", 2L)
                .containsEntry("experts", 4L).containsEntry("mode", "replicate");
        assertThat((List<?>) world.get("workers")).hasSize(2).first().isEqualTo(Map.of("index", 0L,
                "pod", "olmoe-worker-0", "nodeRank", 0L, "node", "n0", "domain", "d0", "rack", "r0"));
        assertThat(parse(JobPageJson.of(ID, null, activity(), STATUS, new LoadHistory(0.5), JobPageJson.GpuView.NONE,
                List.of(), JobPageJson.InUse.NONE)).get("world")).as("no world yet").isEqualTo(Map.of());
    }

    @Test
    void theHeatmapIsTheSmoothedLoadRowMajorWithItsMaximum() {
        LoadHistory h = new LoadHistory(1.0);
        ModelLoads step = new ModelLoads(2, 1, 1, 3);
        System.arraycopy(new long[] {5, 0, 1}, 0, step.counts(0, 0), 0, 3);
        System.arraycopy(new long[] {2, 9, 4}, 0, step.counts(1, 0), 0, 3);
        h.observe(41, step);
        var points = List.of(new PageHistory.Point(1000, 3, 41, 2.5, 1.2, 1.1, "3.5",
                new BalancerStatus.Measured(2.4, 1.2, 0.5, 0.25, 0.3, 0.2)));
        Map<String, Object> doc = parse(JobPageJson.of(ID, WORLD, activity(), STATUS, h,
                new JobPageJson.GpuView(new long[] {9, 1}, new long[] {5, 5}), points, JobPageJson.InUse.NONE));
        assertThat(doc.get("heatmap")).isEqualTo(Map.of("step", 41L, "layers", 2L, "experts", 3L, "max", 9L,
                "values", List.of(5L, 0L, 1L, 2L, 9L, 4L)));
        assertThat(doc.get("gpus")).isEqualTo(Map.of("before", List.of(9L, 1L), "after", List.of(5L, 5L)));
        assertThat(doc.get("history")).isEqualTo(List.of(Map.ofEntries(Map.entry("t", 1000L),
                Map.entry("generation", 3L), Map.entry("step", 41L), Map.entry("measuredBefore", 2.5),
                Map.entry("measuredAfter", 1.2), Map.entry("predictedAfter", 1.1), Map.entry("plan", "3.5"),
                Map.entry("stepBefore", 0.5), Map.entry("stepAfter", 0.25), Map.entry("computeBefore", 0.3),
                Map.entry("computeAfter", 0.2))));
    }

    @Test
    void theHistoryKeepsOnePointPerStepAndOnlyTheNewest() {
        PageHistory history = new PageHistory(3);
        for (long step : new long[] {1, 1, 2, 3, 4}) {
            history.add(new PageHistory.Point(step, 1, step, 1, 1, 1, "", null));
        }
        assertThat(history.points()).extracting(PageHistory.Point::step).containsExactly(2L, 3L, 4L);
        history.add(new PageHistory.Point(9, 2, 4, 1, 1, 1, "", null));
        assertThat(history.points()).as("the same step of a new generation is a new point").hasSize(3)
                .last().extracting(PageHistory.Point::generation).isEqualTo(2L);
    }

    @Test
    void gpuLoadsRouteEveryTokenToAGpuOfItsCopy() {
        // 8 GPUs: expert groups of 2 (ep) in 4 data-parallel copies; 3 layers of 4 experts
        var workers = new dev.ballast.contracts.world.WorldWorker[4];
        for (int i = 0; i < 4; i++) {
            workers[i] = TestWorlds.worker("j", i, i, "n" + i, "", "");
        }
        WorldDocument world = TestWorlds.world("j", 1, 2, TestWorlds.spec(3, 4, 2, 2, 1, 20), workers);
        PlanningSetup setup = PlanningSetup.of("j", world.spec(), world);
        ModelLoads loads = new ModelLoads(3, 4, 2, 4);
        Random random = new Random(7);
        long total = 0;
        long[] perCopy = new long[4];
        for (int l = 0; l < 3; l++) {
            for (int c = 0; c < 4; c++) {
                long[] counts = loads.counts(l, c);
                for (int i = 0; i < counts.length; i++) {
                    counts[i] = random.nextInt(100);
                    total += counts[i];
                    perCopy[c] += counts[i];
                }
            }
        }
        long[] perGpu = GpuLoads.of(setup.context(), setup.planner().routing(), null, loads);
        assertThat(perGpu).hasSize(8);
        assertThat(Arrays.stream(perGpu).sum()).isEqualTo(total);
        for (int c = 0; c < 4; c++) {
            assertThat(perGpu[2 * c] + perGpu[2 * c + 1]).as("copy %d's GPUs", c).isEqualTo(perCopy[c]);
        }
    }

    static Map<String, Object> placement(JobPageJson.InUse inUse) {
        @SuppressWarnings("unchecked")
        Map<String, Object> p = (Map<String, Object>) parse(JobPageJson.of(ID, WORLD, activity(), STATUS,
                new LoadHistory(0.5), JobPageJson.GpuView.NONE, List.of(), inUse)).get("placement");
        return p;
    }

    @Test
    void thePlacementListsEachGpusCopiesBeyondItsHomeBlock() {
        // 4 GPUs in one expert group, 8 experts (homes 0-1, 2-3, 4-5, 6-7), 2 layers
        Parallelism par = new Parallelism(4, 1, 1);
        LayerPlacement replicated = LayerPlacement.of(8, new int[][] {{0, 1, 7}, {2, 3}, {4, 5, 7, 0}, {6, 7}});
        Plan plan = new Plan(new PlanVersion(3, 6), 120, Mode.REPLICATE, "ballast", 8, par,
                new LayerPlacement[][] {{replicated}, {LayerPlacement.staticLayout(4, 8)}});
        assertThat(placement(new JobPageJson.InUse(par, 2, 8, plan, "3.6"))).isEqualTo(Map.of("plan", "3.6",
                "held", true, "ep", 4L, "dp", 1L, "pp", 1L, "homeFirst", List.of(0L, 2L, 4L, 6L, 8L), "layers", List.of(
                        Map.of("stage", 0L, "extra", List.of(List.of(7L), List.of(), List.of(0L, 7L), List.of())),
                        Map.of("stage", 0L, "extra", List.of(List.of(), List.of(), List.of(), List.of())))));

        // FSSDP may leave a home expert unmaterialized on its home GPU: listed as missing
        LayerPlacement moved = LayerPlacement.of(8, new int[][] {{0, 7}, {1, 2, 3}, {4, 5}, {6, 7}});
        Plan fssdp = new Plan(new PlanVersion(3, 7), 130, Mode.FSSDP, "ballast", 8, par,
                new LayerPlacement[][] {{moved}, {moved}});
        assertThat(((List<?>) placement(new JobPageJson.InUse(par, 2, 8, fssdp, "3.7")).get("layers")).get(0))
                .isEqualTo(Map.of("stage", 0L, "extra", List.of(List.of(7L), List.of(1L), List.of(), List.of()),
                        "missing", List.of(List.of(1L), List.of(), List.of(), List.of())));
    }

    @Test
    void theStaticLayoutHasNoExtraCopiesAndAPlanNotHeldIsNamedOnly() {
        Parallelism par = new Parallelism(2, 1, 2); // two pipeline stages of 2 GPUs
        Map<String, Object> stat = placement(new JobPageJson.InUse(par, 4, 4, null, ""));
        assertThat(stat).containsEntry("plan", "").containsEntry("held", true)
                .containsEntry("homeFirst", List.of(0L, 2L, 4L));
        assertThat(((List<?>) stat.get("layers")).stream().map(l -> (Object) ((Map<?, ?>) l).get("stage")).toList())
                .containsExactly(0L, 0L, 1L, 1L);
        assertThat(placement(new JobPageJson.InUse(par, 4, 4, null, "2.9"))).containsEntry("plan", "2.9")
                .containsEntry("held", false).doesNotContainKey("layers");
        assertThat(placement(JobPageJson.InUse.NONE)).as("no planning setup yet").isEqualTo(Map.of());
    }
}
