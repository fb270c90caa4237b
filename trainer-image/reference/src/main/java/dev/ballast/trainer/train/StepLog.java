package dev.ballast.trainer.train;

import java.util.Arrays;

/** One training step as logged: the loss, its wall time and per layer the per-expert counts (the measured loads). */
public record StepLog(int step, double loss, int tokens, long nanos, int[][] counts) {

    public double tokensPerSecond() {
        return tokens * 1e9 / Math.max(nanos, 1);
    }

    /** max/mean of a layer's counts: 1 is perfectly balanced; the slowest expert sets the layer's time. */
    public static double imbalance(int[] counts) {
        long sum = Arrays.stream(counts).asLongStream().sum();
        int max = Arrays.stream(counts).max().orElse(0);
        return sum == 0 ? 1 : max * (double) counts.length / sum;
    }

    public String format() {
        StringBuilder sb = new StringBuilder(String.format("step %5d  loss %.4f  %8.0f tok/s", step, loss,
                tokensPerSecond()));
        for (int l = 0; l < counts.length; l++) {
            sb.append(String.format("  L%d max/mean %.2f", l, imbalance(counts[l])));
            if (counts[l].length <= 16) {
                sb.append(' ').append(Arrays.toString(counts[l]));
            }
        }
        return sb.toString();
    }
}
