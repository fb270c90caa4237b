package dev.ballast.tools.trainbench;

import dev.ballast.planner.model.Mode;
import dev.ballast.trainer.parallel.RankStepLog;
import java.util.List;

/**
 * One measured run: a planner's plan, fixed for the whole run, in one mode, and every rank's log of every step
 * ({@code logs.get(rank).get(step - 1)}). Figures leave out the first {@code skip} steps (the JIT and the first
 * plan's materialization).
 */
public record MeasuredRun(String planner, Mode mode, int skip, List<List<RankStepLog>> logs) {

    public MeasuredRun {
        if (logs.isEmpty()) {
            throw new IllegalArgumentException(planner + "/" + mode.wireName() + ": no rank logs");
        }
        int steps = logs.get(0).size();
        for (List<RankStepLog> rank : logs) {
            if (rank.size() != steps) {
                throw new IllegalArgumentException(planner + "/" + mode.wireName() + ": ranks logged "
                        + rank.size() + " and " + steps + " steps");
            }
        }
        if (skip < 0 || skip >= steps) {
            throw new IllegalArgumentException(planner + "/" + mode.wireName() + ": skipping " + skip + " of " + steps
                    + " steps leaves nothing to measure");
        }
        logs = List.copyOf(logs.stream().map(List::copyOf).toList());
    }

    public int ranks() {
        return logs.size();
    }

    public int steps() {
        return logs.get(0).size();
    }

    /** Steps the figures cover. */
    public int measuredSteps() {
        return steps() - skip;
    }

    /** The loss of every step (identical on every rank). */
    public double[] losses() {
        return logs.get(0).stream().mapToDouble(RankStepLog::loss).toArray();
    }

    /** Per rank, mean milliseconds per measured step of a field (thread CPU or wall). */
    public double[] perRankMs(Field field) {
        double[] out = new double[ranks()];
        for (int r = 0; r < ranks(); r++) {
            long sum = 0;
            for (RankStepLog l : logs.get(r).subList(skip, steps())) {
                sum += field.nanos(l);
            }
            out[r] = sum / 1e6 / measuredSteps();
        }
        return out;
    }

    /** Mean over measured steps of the slowest rank's value in that step, milliseconds. */
    public double slowestMs(Field field) {
        double sum = 0;
        for (int s = skip; s < steps(); s++) {
            long max = 0;
            for (List<RankStepLog> rank : logs) {
                max = Math.max(max, field.nanos(rank.get(s)));
            }
            sum += max;
        }
        return sum / 1e6 / measuredSteps();
    }

    /** What a figure is taken from. */
    public enum Field {
        /** Thread CPU in expert FFNs (forward and backward). */
        EXPERT_CPU,
        /** Thread CPU outside collectives: the rank's whole compute. */
        COMPUTE_CPU,
        /** The step's wall time. */
        STEP_WALL;

        long nanos(RankStepLog l) {
            return switch (this) {
                case EXPERT_CPU -> l.expertCpuNanos();
                case COMPUTE_CPU -> l.computeCpuNanos();
                case STEP_WALL -> l.stepNanos();
            };
        }
    }
}
