package dev.ballast.client;

import dev.ballast.contracts.plan.PlanVersion;

/**
 * A load report in one reusable, mutable buffer: {@code counts[(layer - firstLayer) * experts + expert]}. The slots
 * of {@link ReportRing} and the sender's scratch copy are FlatReports, so the report path allocates only when a
 * report needs more room than a buffer has (the first report, or a larger shape), never per call.
 */
final class FlatReport {
    long worldGeneration;
    long step;
    int gpuRank;
    int firstLayer;
    int layers;
    int experts;
    PlanVersion adopted;
    long stepNanos = StepTiming.NOT_MEASURED;
    long computeNanos = StepTiming.NOT_MEASURED;
    long[] counts = new long[0];

    /** Copies a caller's report in; {@code experts} is the rows' common length (already checked). */
    void fill(long worldGeneration, long step, int gpuRank, int firstLayer, long[][] rows, int experts, PlanVersion adopted,
              StepTiming timing) {
        this.worldGeneration = worldGeneration;
        this.step = step;
        this.gpuRank = gpuRank;
        this.firstLayer = firstLayer;
        this.layers = rows.length;
        this.experts = experts;
        this.adopted = adopted;
        this.stepNanos = timing == null ? StepTiming.NOT_MEASURED : timing.stepNanos();
        this.computeNanos = timing == null ? StepTiming.NOT_MEASURED : timing.computeNanos();
        ensure(rows.length * experts);
        for (int l = 0; l < rows.length; l++) {
            System.arraycopy(rows[l], 0, counts, l * experts, experts);
        }
    }

    void copyFrom(FlatReport o) {
        worldGeneration = o.worldGeneration;
        step = o.step;
        gpuRank = o.gpuRank;
        firstLayer = o.firstLayer;
        layers = o.layers;
        experts = o.experts;
        adopted = o.adopted;
        stepNanos = o.stepNanos;
        computeNanos = o.computeNanos;
        ensure(o.layers * o.experts);
        System.arraycopy(o.counts, 0, counts, 0, o.layers * o.experts);
    }

    long count(int layerIndex, int expert) {
        return counts[layerIndex * experts + expert];
    }

    private void ensure(int n) {
        if (counts.length < n) {
            counts = new long[n];
        }
    }
}
