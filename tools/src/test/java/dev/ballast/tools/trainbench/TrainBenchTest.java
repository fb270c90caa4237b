package dev.ballast.tools.trainbench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.planner.model.Mode;
import dev.ballast.trainer.parallel.RankStepLog;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's code path on the smoke configuration (a tiny model, a few steps: seconds), and its refusal of
 * results it cannot compare.
 */
class TrainBenchTest {

    @Test
    void everyPlanInEveryModeTrainsTheSameLossAndIsReportedWithItsPrediction() {
        TrainBenchReport report = TrainBench.run(TrainBenchConfig.smoke(), null);

        assertThat(report.rows()).extracting(r -> r.run().mode().wireName() + "/" + r.run().planner())
                .containsExactly("replicate/static", "replicate/eplb", "replicate/ballast", "fssdp/static",
                        "fssdp/eplb", "fssdp/ballast");
        // Same seed and data, and a plan does not change the math: the curves agree (within float tolerance where
        // replicas sum an expert's gradient in another order).
        assertThat(report.maxLossDeviation()).isLessThanOrEqualTo(TrainBenchReport.LOSS_TOLERANCE);
        assertThat(report.lossesAgree()).isTrue();
        // The routing does not depend on the plan: what the plans were computed from is what they ran on.
        assertThat(report.routingMatches()).isTrue();
        for (TrainBenchReport.Row r : report.rows()) {
            assertThat(r.run().losses()[0]).as("first loss of %s", r.run().planner())
                    .isEqualTo(report.rows().get(0).run().losses()[0]);
            assertThat(java.util.Arrays.stream(r.run().perRankMs(MeasuredRun.Field.EXPERT_CPU)).boxed())
                    .hasSize(4).allSatisfy(ms -> assertThat(ms).isPositive());
            assertThat(r.predicted().computeMs()).isPositive();
            assertThat(r.predicted().totalMs()).isGreaterThanOrEqualTo(r.predicted().computeMs());
        }
        // The static plan keeps every expert on its home: nothing exposed beyond compute and the all-to-alls there.
        assertThat(report.row("static", Mode.REPLICATE).predicted().exposedParamMs()).isZero();
        // Skewed routing: the static layout's busiest rank computes more than the balanced plans predict for theirs.
        assertThat(report.predictedRatio(report.row("ballast", Mode.REPLICATE), true)).isLessThan(1);
        String md = report.markdown();
        assertThat(md).contains("| replicate | ballast |", "| fssdp | eplb |", "predicted compute",
                "| replicate | static | 0 | 0, 1 | 2, 3 | 4, 5 | 6, 7 |")
                .doesNotContain("NaN");
    }

    @Test
    void aReportRefusesRunsItCannotCompare() {
        MeasuredRun staticRun = run("static", Mode.REPLICATE, 4, 3, 1.0);
        Prediction p = new Prediction(1, 1, 0, 2);

        assertThatThrownBy(() -> new TrainBenchReport(null, List.of(new TrainBenchReport.Row(
                run("ballast", Mode.REPLICATE, 4, 3, 1.0), null, p))))
                .hasMessageContaining("no static run in replicate mode");
        assertThatThrownBy(() -> new TrainBenchReport(null, List.of(new TrainBenchReport.Row(staticRun, null, p),
                new TrainBenchReport.Row(run("eplb", Mode.REPLICATE, 4, 5, 1.0), null, p))))
                .hasMessageContaining("eplb/replicate ran 5 steps").hasMessageContaining("must match");
        assertThatThrownBy(() -> new TrainBenchReport(null, List.of(new TrainBenchReport.Row(
                run("static", Mode.FSSDP, 4, 3, Double.NaN), null, p))))
                .hasMessageContaining("static/fssdp has a loss that is not a number");
        assertThatThrownBy(() -> new TrainBenchReport(null, List.of(new TrainBenchReport.Row(staticRun, null,
                new Prediction(0, 0, 0, 0))))).hasMessageContaining("predicted step time must be positive");
        assertThatThrownBy(() -> new TrainBenchReport(null, List.of())).hasMessageContaining("no runs");
    }

    @Test
    void aRunRefusesRanksOfDifferentLengthsAndASkipThatLeavesNothing() {
        List<List<RankStepLog>> ragged = new ArrayList<>(run("static", Mode.REPLICATE, 2, 3, 1.0).logs());
        ragged.set(1, ragged.get(1).subList(0, 2));
        assertThatThrownBy(() -> new MeasuredRun("static", Mode.REPLICATE, 0, ragged))
                .hasMessageContaining("ranks logged 2 and 3 steps");
        assertThatThrownBy(() -> new MeasuredRun("static", Mode.REPLICATE, 3,
                run("static", Mode.REPLICATE, 2, 3, 1.0).logs())).hasMessageContaining("leaves nothing to measure");
    }

    @Test
    void theFiguresAreTheSlowestRankPerStepAndTheMeansPerRank() {
        // Rank 1 is the slowest in step 2 only: the slowest rank's mean is over each step's maximum.
        MeasuredRun m = new MeasuredRun("static", Mode.REPLICATE, 1, List.of(
                List.of(log(1, 0, 9_000_000), log(2, 0, 4_000_000), log(3, 0, 2_000_000)),
                List.of(log(1, 1, 1_000_000), log(2, 1, 6_000_000), log(3, 1, 1_000_000))));
        assertThat(m.slowestMs(MeasuredRun.Field.EXPERT_CPU)).isEqualTo(4.0);
        assertThat(m.perRankMs(MeasuredRun.Field.EXPERT_CPU)).containsExactly(3.0, 3.5);
        assertThat(TrainBenchReport.maxOverMean(new double[] {3.0, 1.0})).isEqualTo(1.5);
        assertThat(TrainBenchReport.error(1.1, 1.0)).isEqualTo("+10.0%");
    }

    @Test
    void flagsAreCheckedAndNamed() {
        assertThatThrownBy(() -> TrainBenchConfig.parse(new String[] {"--stepz", "3"}))
                .hasMessageContaining("unknown flag '--stepz'");
        assertThatThrownBy(() -> TrainBenchConfig.parse(new String[] {"--steps", "4", "--skip", "4"}))
                .hasMessageContaining("--skip must leave at least one measured step");
        assertThatThrownBy(() -> TrainBenchConfig.parse(new String[] {"--dim", "wide"}))
                .hasMessageContaining("--dim wants a whole number, got 'wide'");
        TrainBenchConfig c = TrainBenchConfig.parse(new String[] {"--ffn-dim", "128", "--routing-skew", "2"});
        assertThat(c.model().ffnDim()).isEqualTo(128);
        assertThat(c.model().routingSkew()).isEqualTo(2f);
        assertThat(c.worldSize()).isEqualTo(4);
    }

    private static MeasuredRun run(String planner, Mode mode, int ranks, int steps, double loss) {
        List<List<RankStepLog>> logs = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            List<RankStepLog> rank = new ArrayList<>();
            for (int s = 1; s <= steps; s++) {
                rank.add(new RankStepLog(s, r, loss, 16, 2_000_000, 1_000_000, 1_000_000, 3_000_000,
                        new int[][] {{1, 1}}, new long[][] {{1, 1}}));
            }
            logs.add(rank);
        }
        return new MeasuredRun(planner, mode, 1, logs);
    }

    private static RankStepLog log(int step, int rank, long expertNanos) {
        return new RankStepLog(step, rank, 1.0, 16, expertNanos, 0, expertNanos, expertNanos, new int[][] {{1}},
                new long[][] {{1}});
    }
}
