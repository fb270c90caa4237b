package dev.ballast.tools.bench;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonFields;
import dev.ballast.planner.codec.PlanJson;
import dev.ballast.planner.model.MemoryBudget;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.PlanValidator;
import dev.ballast.tools.synth.Scenarios;
import dev.ballast.tools.synth.SyntheticTrace;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BenchMainTest {
    static String run(String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = BenchMain.bench(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(rc).isZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("[bench]");
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void jsonOutputCarriesResultsAndEchoesParameters() throws Exception {
        String out = run("--synthetic", "bursty", "--steps", "4", "--replan", "2", "--topology", "nodes=2,gpusPerNode=4",
                "--planners", "static,eplb,ballast", "--json");
        Map<String, Object> doc = JsonFields.object(Json.parse(out.trim()), "bench output");
        Map<String, Object> params = JsonFields.object(doc.get("parameters"), "parameters");
        assertThat(params).containsEntry("replanEverySteps", 2L).containsEntry("redundantSlotsPerGpu", 2L)
                .containsEntry("mode", "replicate").containsEntry("tokensPerGpu", 8192L);
        List<Object> results = JsonFields.requireArray(doc, "results");
        assertThat(results).hasSize(3);
        for (Object o : results) {
            Map<String, Object> r = JsonFields.object(o, "result");
            assertThat(r).containsKeys("trace", "planner", "topology", "mode", "fractionOfIdeal", "imbalance", "interNodeBytes",
                    "paramBytesMoved", "movedBytesPerStep", "planMillisMedian", "planMillisP99");
            assertThat(r.get("mode")).isEqualTo("causal");
            assertThat(((Number) r.get("fractionOfIdeal")).doubleValue()).isPositive();
        }
        Map<String, Object> stat = JsonFields.object(results.get(0), "static");
        Map<String, Object> ballast = JsonFields.object(results.get(2), "ballast");
        assertThat(((Number) ballast.get("imbalance")).doubleValue()).isLessThan(((Number) stat.get("imbalance")).doubleValue());
    }

    @Test
    void tableOutputLabelsOracleAndCausal() throws Exception {
        String out = run("--synthetic", "whole-model", "--topology", "nodes=1,gpusPerNode=8", "--planners", "static");
        assertThat(out).contains("# parameters:").contains("oracle/replicate").contains("frac. of ideal");
    }

    @Test
    void seedDrawsTheSameScenarioAgain() throws Exception {
        String[] base = {"--synthetic", "bursty", "--steps", "4", "--replan", "2", "--topology", "nodes=2,gpusPerNode=4",
                "--planners", "static"};
        String suite = run(base);
        String same = run(concat(base, "--seed", "13"));
        String other = run(concat(base, "--seed", "14"));
        assertThat(suite).contains("seed=13"); // the suite's own seed of the scenario
        assertThat(same).contains("seed=13");
        assertThat(tableRows(same)).isEqualTo(tableRows(suite));
        assertThat(other).contains("seed=14");
        assertThat(tableRows(other)).isNotEqualTo(tableRows(suite));
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** The table's rows up to the fraction of ideal and max/mean (plan times differ from run to run). */
    private static List<String> tableRows(String out) {
        return out.lines().filter(l -> l.startsWith("bursty"))
                .map(l -> String.join(" ", Arrays.copyOf(l.trim().split("\\s+"), 9))).toList();
    }

    @Test
    void errorsNameTheFlag() {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertThatThrownBy(() -> BenchMain.bench(new String[] {"--bogus"}, sink, sink)).hasMessageContaining("unknown flag --bogus");
        assertThatThrownBy(() -> BenchMain.bench(new String[] {"--synthetic", "bursty", "--slots", "x"}, sink, sink))
                .hasMessageContaining("--slots must be an integer");
        assertThatThrownBy(() -> BenchMain.bench(new String[] {"--trace", "/nonexistent.jsonl"}, sink, sink))
                .hasMessageContaining("--trace /nonexistent.jsonl: no such file");
        assertThatThrownBy(() -> BenchMain.bench(new String[] {}, sink, sink)).hasMessageContaining("give --trace FILE or --synthetic NAME");
        assertThatThrownBy(() -> BenchMain.bench(new String[] {"--synthetic", "bursty", "--planners", "magic"}, sink, sink))
                .hasMessageContaining("unknown planner 'magic'");
        assertThatThrownBy(() -> BenchMain.bench(new String[] {"--trace", "/nonexistent.jsonl", "--seed", "3"}, sink, sink))
                .hasMessageContaining("--seed reseeds the --synthetic scenarios; none was given");
    }

    @Test
    void planPrintsAValidJsonPlan() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BenchMain.plan(new String[] {"--synthetic", "heterogeneous", "--step", "2", "--topology", "nodes=2,gpusPerNode=8",
                "--world-generation", "4", "--sequence", "9"}, new PrintStream(out, true, StandardCharsets.UTF_8));
        Plan p = PlanJson.decode(out.toString(StandardCharsets.UTF_8).trim());
        assertThat(p.version().worldGeneration()).isEqualTo(4);
        assertThat(p.version().sequence()).isEqualTo(9);
        assertThat(p.earliestStep()).isEqualTo(3);
        assertThat(p.planner()).isEqualTo("ballast");
        PlanValidator.validate(p, 4 + 2);
    }

    @Test
    void aMemoryBudgetLimitsTheReplicasPerGpuAndOneTooSmallIsRefused() throws Exception {
        String[] base = {"--synthetic", "heterogeneous", "--step", "2", "--topology", "nodes=2,gpusPerNode=8"};
        // The plan's own model and layout: 16 GPUs, EP 16, 64 experts (4 homes per GPU), 4 layers.
        MoeShape shape = MoeShape.forModel(new SyntheticTrace(Scenarios.byName("heterogeneous")).header().model(), 4, 64, 8);
        Parallelism par = Parallelism.resolve(16, 64, null, 1);
        long oneSlot = (long) Math.ceil(MemoryBudget.peakBytes(shape, Mode.REPLICATE, par, 1));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String[] budgeted = concat(base, "--memory-budget", Long.toString(oneSlot));
        BenchMain.plan(budgeted, new PrintStream(out, true, StandardCharsets.UTF_8));
        Plan p = PlanJson.decode(out.toString(StandardCharsets.UTF_8).trim());
        PlanValidator.validate(p, 4 + 1);
        int most = 0;
        for (int l = 0; l < 4; l++) {
            for (int g = 0; g < 16; g++) {
                most = Math.max(most, p.placement(l, 0).nonHomeCopies(g));
            }
        }
        assertThat(most).as("replicas on the fullest GPU").isEqualTo(1);

        PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        long floor = (long) Math.ceil(MemoryBudget.peakBytes(shape, Mode.REPLICATE, par, 0));
        String[] tooSmall = concat(base, "--memory-budget", Long.toString(floor - 1));
        assertThatThrownBy(() -> BenchMain.plan(tooSmall, sink)).hasMessageContaining("--memory-budget: memoryBudgetBytes "
                + (floor - 1) + " is below the " + floor + " bytes per GPU");
    }
}
