package dev.ballast.trainer.parallel;

/**
 * One rank's view of one distributed step. loss: the mean over all ranks' tokens (identical on every rank);
 * computeCpuNanos: this rank thread's CPU time in the step outside collectives; exchangeNanos: wall time inside
 * collectives (waiting for slower ranks included); expertCpuNanos: the part of computeCpuNanos spent in expert FFNs
 * (forward and backward: what a plan moves between ranks); stepNanos: the step's wall time. counts: per layer, every
 * expert's assignments summed over all ranks; rankCounts: the same for this rank's own tokens (what it reports to
 * its sidecar).
 */
public record RankStepLog(int step, int rank, double loss, int tokens, long computeCpuNanos, long exchangeNanos,
                          long expertCpuNanos, long stepNanos, int[][] counts, long[][] rankCounts) {
}
