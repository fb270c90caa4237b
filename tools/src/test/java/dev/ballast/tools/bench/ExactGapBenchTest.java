package dev.ballast.tools.bench;

import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.tools.exact.ExactSolution;
import dev.ballast.tools.exact.Masters;
import dev.ballast.planner.ballast.RoutedSearch;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExactGapBenchTest {
    private static final LayerPlacement STATIC = LayerPlacement.staticLayout(2, 2);

    @Test
    void unknownInstanceIsRefusedWithTheKnownNames() {
        PrintStream sink = new PrintStream(new ByteArrayOutputStream());
        assertThatThrownBy(() -> ExactGapBench.run(new String[] {"--instances", "mixtral-3x3"}, sink, sink))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown instance 'mixtral-3x3'")
                .hasMessageContaining("mixtral-2x4");
    }

    @Test
    void stepFiguresSumTheSlowestCopyPerLayerAndTheTargetVerdictFollowsTheGap() {
        ExactGapBench.Instance in = ExactGapBench.NAMED.get(0);
        // Layer 0: copies at 10 and 12 ms optimum; layer 1: 10 ms. Ballast 10.2 / 12.2 / 10.2: 2 % over, target met.
        var met = new ExactGapBench.InstanceResult(in, "ep=2,dp=2,pp=1", 3, List.of(
                row(0, 0, 0.010, 0.010, true, 0.0102),
                row(0, 1, 0.012, 0.012, true, 0.0122),
                row(1, 0, 0.010, 0.010, true, 0.0102)), 1.5);
        assertThat(met.step(r -> r.exact().incumbentSec())).isCloseTo(0.022, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(met.step(ExactGapBench.LayerRow::ballast)).isCloseTo(0.0224, org.assertj.core.data.Offset.offset(1e-12));
        // Not proven: optimum in [9, 10] ms, Ballast 10.2 ms: 2 % over the incumbent, 13 % over the bound: open.
        var open = new ExactGapBench.InstanceResult(in, "ep=2,dp=1,pp=1", 3, List.of(row(0, 0, 0.010, 0.009, false, 0.0102)),
                0.24);
        String page = ExactGapBench.render(List.of(met, open), Mode.REPLICATE, 2, 50, Masters.FREE, 60_000);
        // Ballast routed at the incumbent in every row: met where proven, open where the bound is 10 % lower.
        assertThat(page).contains("| mixtral-1x4 | ep=2,dp=2,pp=1 | 3 | 22.000 | yes | 22.400 | 1.82 % | met "
                + "| 22.000 | 0.00 % | met | 1.5 s |");
        assertThat(page).contains("| mixtral-1x4 | ep=2,dp=1,pp=1 | 3 | 9.000..10.000 | no | 10.200 | 2.00..13.33 % | open "
                + "| 10.000 | 0.00..11.11 % | open | 0.2 s |");
        assertThat(page).contains("| mixtral-1x4 | 0 | 1 | 12.000 | 0.00 % | 12.200 | 1.67 % | 12.000 | 0.00 % |");
    }

    @Test
    void placementAndRoutingApartAreSummedLikeTheOtherColumnsAndListedPerLayer() {
        ExactGapBench.Instance in = ExactGapBench.NAMED.get(0);
        LayerPlacement found = LayerPlacement.of(2, new int[][] {{0, 1}, {1}});
        var routed = new ExactGapBench.Routed(0.0101, new RoutedSearch.Result(found, 0.0100, 3, 120), 0.0105);
        String page = ExactGapBench.render(List.of(twoProvenLayers(in, routed)), Mode.REPLICATE, 2, 50, Masters.HOME, 60_000);
        // Step: 10.1 + 10.1 ms under best routing, 20.0 ms searched (0 % over the 20 ms optimum), 21.0 ms by the rule.
        assertThat(page).contains("| 20.400 | 20.200 | 20.000 | 0.00 % | 21.000 |");
        assertThat(page).contains("| mixtral-1x4 | 1 | 0 | 10.000 | 10.200 | 10.100 | 10.000 | 0.00 % | 3 | 120 | 10.500 | [0,1] [1] |");
    }

    /** Two layers of one copy, each proven at 10 ms, Ballast (and everything else scored) at 10.2 ms. */
    private static ExactGapBench.InstanceResult twoProvenLayers(ExactGapBench.Instance in, ExactGapBench.Routed routed) {
        return new ExactGapBench.InstanceResult(in, "ep=2,dp=1,pp=1", 2, List.of(
                new ExactGapBench.LayerRow(0, 0, new ExactSolution(0.010, 0.010, true, STATIC, 0), 0.0102, 0.0101, 0.0102,
                        0.009, 0.0102, routed),
                new ExactGapBench.LayerRow(1, 0, new ExactSolution(0.010, 0.010, true, STATIC, 0), 0.0102, 0.0101, 0.0102,
                        0.009, 0.0102, routed)), 1.0);
    }

    private static ExactGapBench.LayerRow row(int layer, int copy, double incumbent, double bound, boolean optimal,
                                              double ballast) {
        return new ExactGapBench.LayerRow(layer, copy, new ExactSolution(incumbent, bound, optimal, STATIC, 0), ballast,
                incumbent, ballast, bound * 0.9, ballast, null);
    }
}
