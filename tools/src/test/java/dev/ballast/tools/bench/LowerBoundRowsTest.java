package dev.ballast.tools.bench;

import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Topology;
import dev.ballast.tools.synth.Scenarios;
import dev.ballast.tools.synth.SyntheticTrace;
import dev.ballast.tools.trace.TraceSource;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The docs suite's rows never read above their lower bound: the aggregate real traces on every docs topology in both
 * modes, the synthetic scenarios and the reference trainer's learned routing (first 60 steps, causal) at 8x8, and
 * heterogeneous in fssdp mode at 2x8 with 1,024 tokens per GPU (node shards); every planner and every placement ×
 * routing pairing. The evaluator also refuses any layer whose bound exceeds its cost, so rendering the page checks
 * every row in full.
 */
class LowerBoundRowsTest {
    static final List<String> PLANNERS = List.of("static", "eplb", "eplb@quota-rule", "ballast@equal-split", "ballast",
            "ballast-scratch");

    @Test
    void fractionOfBoundIsAtMostOneOnEveryRow() throws Exception {
        List<TraceSource> traces = new ArrayList<>();
        Path dir = Path.of("..", "traces"); // tests run in the tools module's folder
        for (String f : DocsSuite.AGGREGATE_TRACES) {
            traces.add(DocsSuite.readTrace(dir, f));
        }
        int rows = 0;
        for (TraceSource t : traces) {
            for (String[] topo : DocsSuite.TOPOLOGIES) {
                for (Mode mode : Mode.values()) {
                    rows += check(t, topo[1], BenchConfig.defaults().with(mode));
                }
            }
        }
        BenchConfig short60 = BenchConfig.defaults().withMaxSteps(60);
        for (String name : List.of("zipf-top1-hot", "zipf-top8", "bursty", "heterogeneous", "drift-fast")) {
            rows += check(new SyntheticTrace(Scenarios.byName(name)), DocsSuite.TOPOLOGIES[1][1], short60);
        }
        rows += check(DocsSuite.readTrace(dir, DocsSuite.LEARNED_TRACE), DocsSuite.TOPOLOGIES[1][1], short60);
        // fssdp with gathers exposed (1,024 tokens per GPU), where Ballast's plans shard experts over their home node.
        BenchConfig exposed = BenchConfig.defaults().with(Mode.FSSDP).withTokensPerGpu(1024).withMaxSteps(60);
        rows += check(new SyntheticTrace(Scenarios.byName("heterogeneous")), DocsSuite.TOPOLOGIES[0][1], exposed);
        assertThat(rows).isEqualTo(2 * 3 * 2 * PLANNERS.size() + 7 * PLANNERS.size());
    }

    private static int check(TraceSource t, String topoSpec, BenchConfig cfg) {
        int n = 0;
        for (String p : PLANNERS) {
            BenchResult r = Evaluator.run(t, Topology.parse(topoSpec), RoutedPlanner.byName(p), cfg, 50);
            assertThat(r.fractionOfBound()).as(r.trace() + " " + r.topology() + " " + p).isPositive().isLessThanOrEqualTo(1.0);
            n++;
        }
        return n;
    }
}
