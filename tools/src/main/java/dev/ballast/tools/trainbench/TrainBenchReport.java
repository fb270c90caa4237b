package dev.ballast.tools.trainbench;

import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.StaticLayout;
import dev.ballast.trainer.parallel.RankStepLog;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The benchmark's tables: per mode and planner the measured per-rank thread CPU and the loss, and the cost model's
 * predicted slowest-rank ratio against static beside the measured one. Refuses results it cannot compare: a mode
 * without its static run, runs of another length or world, a loss that is not a number.
 */
public record TrainBenchReport(Calibration calibration, List<Row> rows) {

    /** Relative tolerance within which every plan's loss curve must equal static's (the math does not change). */
    public static final double LOSS_TOLERANCE = 1e-4;

    /** One measured run, the plan it ran (null: the static layout) and the cost model's prediction for it. */
    public record Row(MeasuredRun run, Plan plan, Prediction predicted) {
    }

    public TrainBenchReport {
        rows = List.copyOf(rows);
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("no runs to report");
        }
        MeasuredRun first = rows.get(0).run();
        for (Row r : rows) {
            MeasuredRun m = r.run();
            if (m.steps() != first.steps() || m.skip() != first.skip() || m.ranks() != first.ranks()) {
                throw new IllegalArgumentException(label(m) + " ran " + m.steps() + " steps (skip " + m.skip()
                        + ") on " + m.ranks() + " ranks; " + label(first) + " " + first.steps() + " (skip "
                        + first.skip() + ") on " + first.ranks() + ": runs of one report must match");
            }
            for (double loss : m.losses()) {
                if (!Double.isFinite(loss)) {
                    throw new IllegalArgumentException(label(m) + " has a loss that is not a number: " + loss);
                }
            }
            if (!(r.predicted().totalMs() > 0)) {
                throw new IllegalArgumentException(label(m) + ": the predicted step time must be positive, got "
                        + r.predicted().totalMs());
            }
        }
        for (Mode mode : modes(rows)) {
            staticRow(rows, mode);
        }
    }

    /** The largest relative difference between any run's loss and its mode's static run's at the same step. */
    public double maxLossDeviation() {
        double worst = 0;
        for (Row r : rows) {
            double[] base = staticRow(rows, r.run().mode()).run().losses();
            double[] mine = r.run().losses();
            for (int s = 0; s < mine.length; s++) {
                worst = Math.max(worst, Math.abs(mine[s] - base[s]) / Math.abs(base[s]));
            }
        }
        return worst;
    }

    /** Whether every run routed every rank's tokens exactly as the first run did, step by step. */
    public boolean routingMatches() {
        List<List<RankStepLog>> first = rows.get(0).run().logs();
        for (Row r : rows) {
            for (int rank = 0; rank < first.size(); rank++) {
                for (int s = 0; s < first.get(rank).size(); s++) {
                    if (!Arrays.deepEquals(first.get(rank).get(s).rankCounts(),
                            r.run().logs().get(rank).get(s).rankCounts())) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    public boolean lossesAgree() {
        return maxLossDeviation() <= LOSS_TOLERANCE;
    }

    /** The run's row (planner and mode), or an error naming what is missing. */
    public Row row(String planner, Mode mode) {
        return rows.stream().filter(r -> r.run().planner().equals(planner) && r.run().mode() == mode).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no " + planner + " run in " + mode.wireName()
                        + " mode"));
    }

    /** Measured ratio of a planner's slowest-rank time to static's in its mode. */
    public double measuredRatio(Row r, MeasuredRun.Field field) {
        return r.run().slowestMs(field) / staticRow(rows, r.run().mode()).run().slowestMs(field);
    }

    /** Predicted ratio (compute term only, or the whole MoE-layer time) of a planner to static in its mode. */
    public double predictedRatio(Row r, boolean computeOnly) {
        Prediction base = staticRow(rows, r.run().mode()).predicted();
        return computeOnly ? r.predicted().computeMs() / base.computeMs() : r.predicted().totalMs() / base.totalMs();
    }

    /** The measured table and the fidelity table, Markdown. */
    public String markdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("| mode | plan | slowest rank, expert CPU ms/step | expert CPU per rank ms/step | max/mean "
                + "| slowest rank, compute CPU ms/step | max/mean | slowest step wall ms | loss at last step |\n");
        sb.append("|---|---|--:|---|--:|--:|--:|--:|--:|\n");
        for (Row r : rows) {
            MeasuredRun m = r.run();
            double[] expert = m.perRankMs(MeasuredRun.Field.EXPERT_CPU);
            double[] compute = m.perRankMs(MeasuredRun.Field.COMPUTE_CPU);
            double[] losses = m.losses();
            sb.append(String.format(Locale.ROOT, "| %s | %s | %.2f | %s | %.2f | %.2f | %.2f | %.1f | %.6f |%n",
                    m.mode().wireName(), m.planner(), m.slowestMs(MeasuredRun.Field.EXPERT_CPU), list(expert),
                    maxOverMean(expert), m.slowestMs(MeasuredRun.Field.COMPUTE_CPU), maxOverMean(compute),
                    m.slowestMs(MeasuredRun.Field.STEP_WALL), losses[losses.length - 1]));
        }
        sb.append(String.format(Locale.ROOT, "%nLoss curves: every plan's loss at every step within %.1e relative of "
                + "static's in its mode (tolerance %.0e): %s. Every run's routing (per rank, layer and expert, "
                + "every step) the same as the first's: %s.%n%n", maxLossDeviation(), LOSS_TOLERANCE,
                lossesAgree() ? "yes" : "**no**", routingMatches() ? "yes" : "**no**"));
        sb.append("| mode | plan / static | predicted compute | measured expert CPU (slowest rank) | error "
                + "| predicted MoE layers (compute + all-to-all + exposed params) | measured step wall (slowest rank) "
                + "| error | measured compute CPU (slowest rank) |\n");
        sb.append("|---|---|--:|--:|--:|--:|--:|--:|--:|\n");
        for (Row r : rows) {
            if (r.run().planner().equals("static")) {
                continue;
            }
            double pc = predictedRatio(r, true);
            double mc = measuredRatio(r, MeasuredRun.Field.EXPERT_CPU);
            double pt = predictedRatio(r, false);
            double mw = measuredRatio(r, MeasuredRun.Field.STEP_WALL);
            sb.append(String.format(Locale.ROOT, "| %s | %s | %.3f | %.3f | %s | %.3f | %.3f | %s | %.3f |%n",
                    r.run().mode().wireName(), r.run().planner(), pc, mc, error(pc, mc), pt, mw, error(pt, mw),
                    measuredRatio(r, MeasuredRun.Field.COMPUTE_CPU)));
        }
        sb.append("\nPlans (per layer, the experts each rank computes; * = off the expert's home; n = fssdp state sharded over ")
                .append("the home's node only, node shards; n@r = over rank r's node instead):\n\n");
        sb.append("| mode | plan | layer | rank 0 | rank 1 | rank 2 | rank 3 |\n|---|---|--:|---|---|---|---|\n");
        for (Row r : rows) {
            if (r.plan() == null) {
                continue;
            }
            for (int l = 0; l < r.plan().layers(); l++) {
                LayerPlacement p = r.plan().placement(l, 0);
                sb.append(String.format(Locale.ROOT, "| %s | %s | %d |", r.run().mode().wireName(),
                        r.run().planner(), l));
                for (int g = 0; g < p.gpus(); g++) {
                    List<String> experts = new ArrayList<>();
                    for (int e : p.expertsOn(g)) {
                        experts.add(e + (StaticLayout.home(e, p.gpus(), p.experts()) == g ? "" : "*")
                                + shardMark(p, e));
                    }
                    sb.append(' ').append(String.join(", ", experts)).append(" |");
                }
                sb.append('\n');
            }
        }
        sb.append("\nPredicted ms per step (cost model, calibrated constants):\n\n");
        sb.append("| mode | plan | compute | all-to-all | exposed params | total |\n|---|---|--:|--:|--:|--:|\n");
        for (Row r : rows) {
            Prediction p = r.predicted();
            sb.append(String.format(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.2f | %.2f |%n",
                    r.run().mode().wireName(), r.run().planner(), p.computeMs(), p.allToAllMs(), p.exposedParamMs(),
                    p.totalMs()));
        }
        return sb.toString();
    }

    /** Signed relative error of a prediction against the measurement, percent. */
    static String error(double predicted, double measured) {
        return String.format(Locale.ROOT, "%+.1f%%", (predicted - measured) / measured * 100);
    }

    static double maxOverMean(double[] v) {
        double max = 0;
        double sum = 0;
        for (double x : v) {
            max = Math.max(max, x);
            sum += x;
        }
        return sum == 0 ? 1 : max / (sum / v.length);
    }

    /** "n" for an expert sharded over its home's node, "n@r" over rank r's node instead, "" for even shards. */
    private static String shardMark(LayerPlacement p, int e) {
        if (!p.nodeSharded(e)) {
            return "";
        }
        return p.shardRank(e) == StaticLayout.home(e, p.gpus(), p.experts()) ? "n" : "n@" + p.shardRank(e);
    }

    private static String list(double[] v) {
        List<String> parts = new ArrayList<>();
        for (double x : v) {
            parts.add(String.format(Locale.ROOT, "%.2f", x));
        }
        return "[" + String.join(", ", parts) + "]";
    }

    private static List<Mode> modes(List<Row> rows) {
        return rows.stream().map(r -> r.run().mode()).distinct().toList();
    }

    private static Row staticRow(List<Row> rows, Mode mode) {
        return rows.stream().filter(r -> r.run().planner().equals("static") && r.run().mode() == mode).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no static run in " + mode.wireName()
                        + " mode to compare the other plans with"));
    }

    private static String label(MeasuredRun m) {
        return m.planner() + "/" + m.mode().wireName();
    }
}
