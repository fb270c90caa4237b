package dev.ballast.agent.balancer;

import dev.ballast.agent.sidecar.SidecarLink;
import dev.ballast.planner.load.ModelLoads;
import dev.ballast.planner.model.Parallelism;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.IntStream;

/**
 * Collects one world generation's per-GPU reports into whole-step {@link ModelLoads}. A step is complete when every
 * GPU has reported it; steps that fall {@link #MAX_OPEN_STEPS} behind the newest reported step are released
 * incomplete (a missing GPU then counts as zero load). A second report of the same (rank, step) is ignored. A rank
 * missing from {@link #SILENT_AFTER} released steps in a row counts as silent (a straggler that stopped reporting)
 * until it reports again; a rank not heard from yet only once {@link #FIRST_REPORT_GRACE_NANOS} have passed since
 * the assembler started, since a sidecar whose balancer was away waits up to its longest reconnect backoff before it
 * tries again (without this, the peer that reconnected first makes the others look silent). A step also keeps each
 * rank's reported step and compute time, and the slowest of each.
 */
final class StepAssembler {
    static final int MAX_OPEN_STEPS = 4;
    static final int SILENT_AFTER = 3;
    /** The sidecar's longest reconnect wait, and 10 s for a connection and a first report (25 s). */
    static final long FIRST_REPORT_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(SidecarLink.BACKOFF_MAX_MILLIS)
            + TimeUnit.SECONDS.toNanos(10);

    /** A step still collecting reports: its loads, who reported, and the slowest reported times so far. */
    private static final class Open {
        final ModelLoads loads;
        final BitSet ranks = new BitSet();
        int stepTimed;
        int computeTimed;
        double slowestStep;
        double slowestCompute;
        final double[] stepSeconds;
        final double[] computeSeconds;

        Open(ModelLoads loads, int gpus) {
            this.loads = loads;
            this.stepSeconds = new double[gpus];
            this.computeSeconds = new double[gpus];
            java.util.Arrays.fill(stepSeconds, Double.NaN);
            java.util.Arrays.fill(computeSeconds, Double.NaN);
        }
    }

    /**
     * A released step: {@code complete} when every GPU reported it; the slowest rank's step and compute time when
     * it is complete and every rank reported that time, NaN otherwise; each rank's times by GPU rank (NaN: not
     * reported).
     */
    record Released(long step, ModelLoads loads, boolean complete, double slowestStepSeconds,
                    double slowestComputeSeconds, double[] rankStepSeconds, double[] rankComputeSeconds) {
    }

    /** Read access to one report's counts, so they are copied once, straight from the wire message. */
    interface Counts {
        long get(int index);
    }

    private final Parallelism par;
    private final int layers;
    private final int experts;
    private final TreeMap<Long, Open> open = new TreeMap<>();
    /** Released step buffers, zeroed for reuse (a 60×64 world of 256 GPUs is 7.8 MB per step). */
    private final java.util.ArrayDeque<ModelLoads> spare = new java.util.ArrayDeque<>();
    private long released = -1;
    /** Per GPU rank: released steps in a row it was missing from. */
    private final int[] missedInARow;
    /** GPU ranks that reported at least once to this assembler. */
    private final BitSet heard = new BitSet();
    private final LongSupplier nanoClock;
    private final long started;
    private long duplicates;
    private long late;

    StepAssembler(Parallelism par, int layers, int experts, LongSupplier nanoClock) {
        this.par = par;
        this.layers = layers;
        this.experts = experts;
        this.missedInARow = new int[par.gpus()];
        this.nanoClock = nanoClock;
        this.started = nanoClock.getAsLong();
    }

    /**
     * Adds GPU {@code rank}'s counts for layers [firstLayer, firstLayer + n), with its step and compute time (NaN:
     * not reported), and returns the steps now released, in order.
     */
    List<Released> add(long step, int rank, int firstLayer, int n, Counts counts, double stepSeconds,
                       double computeSeconds) {
        List<Released> done = new ArrayList<>();
        if (step <= released) {
            late++;
            return done;
        }
        Open o = open.computeIfAbsent(step, s -> new Open(spare.isEmpty()
                ? new ModelLoads(layers, par.dp(), par.ep(), experts) : spare.pop(), par.gpus()));
        if (o.ranks.get(rank)) {
            duplicates++;
            return done;
        }
        o.ranks.set(rank);
        heard.set(rank);
        if (!Double.isNaN(stepSeconds)) {
            o.stepTimed++;
            o.stepSeconds[rank] = stepSeconds;
            o.slowestStep = Math.max(o.slowestStep, stepSeconds);
        }
        if (!Double.isNaN(computeSeconds)) {
            o.computeTimed++;
            o.computeSeconds[rank] = computeSeconds;
            o.slowestCompute = Math.max(o.slowestCompute, computeSeconds);
        }
        int copy = (rank / par.ep()) % par.dp();
        int local = rank % par.ep();
        for (int i = 0; i < n; i++) {
            long[] dst = o.loads.counts(firstLayer + i, copy);
            int src = i * experts;
            int at = local * experts;
            for (int e = 0; e < experts; e++) {
                dst[at + e] = counts.get(src + e);
            }
        }
        // Release complete steps in order, and anything too far behind the newest step.
        long newest = open.lastKey();
        while (!open.isEmpty()) {
            Map.Entry<Long, Open> first = open.firstEntry();
            Open f = first.getValue();
            boolean complete = f.ranks.cardinality() == par.gpus();
            if (!complete && first.getKey() > newest - MAX_OPEN_STEPS) {
                break;
            }
            open.pollFirstEntry();
            released = first.getKey();
            for (int r = 0; r < missedInARow.length; r++) {
                missedInARow[r] = f.ranks.get(r) ? 0 : missedInARow[r] + 1;
            }
            done.add(new Released(first.getKey(), f.loads, complete,
                    complete && f.stepTimed == par.gpus() ? f.slowestStep : Double.NaN,
                    complete && f.computeTimed == par.gpus() ? f.slowestCompute : Double.NaN, f.stepSeconds,
                    f.computeSeconds));
        }
        return done;
    }

    /** Hands a released step's buffer back once its consumer is done with it. */
    void recycle(ModelLoads m) {
        if (spare.size() < 2) { // steps complete in order, so two spares cover the steady state
            for (int l = 0; l < m.layers(); l++) {
                for (int c = 0; c < m.dp(); c++) {
                    java.util.Arrays.fill(m.counts(l, c), 0);
                }
            }
            spare.push(m);
        }
    }

    /** The silent GPU ranks (missing from the last {@link #SILENT_AFTER} or more released steps), ascending. */
    int[] silentRankList() {
        boolean graceOver = nanoClock.getAsLong() - started >= FIRST_REPORT_GRACE_NANOS;
        return IntStream.range(0, missedInARow.length)
                .filter(r -> missedInARow[r] >= SILENT_AFTER && (graceOver || heard.get(r))).toArray();
    }

    long duplicates() {
        return duplicates;
    }

    long late() {
        return late;
    }
}
