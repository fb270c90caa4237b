package dev.ballast.e2e.scale;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * What a scale run measured. Times in milliseconds unless named otherwise.
 *
 * @param placementMs per admitted job, the operator's time to read its caches and choose nodes
 * @param admissionMs per admitted job, placement and creating its gated pods (API round trips included)
 * @param unschedulableAttempts admission attempts that found no room (the too-big job's retries)
 * @param unschedulableMeanMs their mean operator time
 * @param podsSummedPerPendingAttempt pods whose requests a pending attempt summed (the rest count by their node's kept
 *     sum; none is read from the API)
 * @param lastRunningSeconds from the first job's creation until the last fitting job was Running
 * @param heapPeakMiB the largest heap in use sampled (every 500 ms; garbage included, up to -Xmx512m)
 * @param liveHeapPeakMiB the largest old generation after a collection sampled (what the operator keeps)
 * @param cpuSeconds the operator's CPU time during the run
 * @param reconciles reconciles during the run
 * @param requestsByVerb the operator's API requests during the run, by verb
 */
public record ScaleResult(int nodes, int jobs, int fitting, int running, double[] placementMs, double[] admissionMs,
    long unschedulableAttempts, double unschedulableMeanMs, double podsSummedPerPendingAttempt, double lastRunningSeconds,
    double heapPeakMiB, double liveHeapPeakMiB, double cpuSeconds, long reconciles, Map<String, Long> requestsByVerb) {

  public long requests() {
    return requestsByVerb.values().stream().mapToLong(Long::longValue).sum();
  }

  static double percentile(double[] values, double p) {
    if (values.length == 0) return Double.NaN;
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * sorted.length) - 1; // nearest rank
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank))];
  }

  /** The rows BENCHMARKS.md records. */
  public String table() {
    StringBuilder sb = new StringBuilder();
    sb.append("| measure | value |\n|---|---|\n");
    row(sb, "nodes × GPUs", nodes + " × 8");
    row(sb, "jobs applied at once (fit / Running)", jobs + " (" + fitting + " / " + running + ")");
    row(sb, "admission per job, placement (p50 / p99 / max)", ms(percentile(placementMs, 50)) + " / "
        + ms(percentile(placementMs, 99)) + " / " + ms(percentile(placementMs, 100)));
    row(sb, "admission per job, placement + creating its pods (p50 / p99 / max)", ms(percentile(admissionMs, 50))
        + " / " + ms(percentile(admissionMs, 99)) + " / " + ms(percentile(admissionMs, 100)));
    row(sb, "pending retries (attempts, mean time, pods re-summed each)", unschedulableAttempts + ", "
        + ms(unschedulableMeanMs) + ", " + Math.round(podsSummedPerPendingAttempt));
    row(sb, "until every job that fits is Running", String.format(Locale.ROOT, "%.1f s", lastRunningSeconds));
    row(sb, "operator heap, peak in use (garbage included; -Xmx512m)", String.format(Locale.ROOT, "%.0f MiB", heapPeakMiB));
    row(sb, "operator heap, peak live after a collection", String.format(Locale.ROOT, "%.0f MiB", liveHeapPeakMiB));
    row(sb, "operator CPU during the run", String.format(Locale.ROOT, "%.1f s", cpuSeconds));
    row(sb, "reconciles", Long.toString(reconciles));
    row(sb, "API requests (per reconcile)", requests() + String.format(Locale.ROOT, " (%.2f)",
        reconciles == 0 ? Double.NaN : (double) requests() / reconciles));
    row(sb, "API requests by verb", requestsByVerb.toString());
    return sb.toString();
  }

  private static void row(StringBuilder sb, String name, String value) {
    sb.append("| ").append(name).append(" | ").append(value).append(" |\n");
  }

  private static String ms(double v) {
    return String.format(Locale.ROOT, "%.1f ms", v);
  }
}
