package dev.ballast.collectives;

/**
 * How an all-reduce or reduce-scatter combines the ranks' values, element by element. Applied in ascending rank order
 * (rank 0's value first), never in arrival order, so the result's bits depend only on the inputs (docs/collectives.md,
 * "Determinism").
 */
public enum ReduceOp {
    SUM, MIN, MAX;

    /** {@code into[i] = into[i] op from[i]} for every i. */
    void apply(float[] into, float[] from) {
        switch (this) {
            case SUM -> { for (int i = 0; i < into.length; i++) into[i] += from[i]; }
            case MIN -> { for (int i = 0; i < into.length; i++) into[i] = Math.min(into[i], from[i]); }
            case MAX -> { for (int i = 0; i < into.length; i++) into[i] = Math.max(into[i], from[i]); }
        }
    }

    void apply(double[] into, double[] from) {
        switch (this) {
            case SUM -> { for (int i = 0; i < into.length; i++) into[i] += from[i]; }
            case MIN -> { for (int i = 0; i < into.length; i++) into[i] = Math.min(into[i], from[i]); }
            case MAX -> { for (int i = 0; i < into.length; i++) into[i] = Math.max(into[i], from[i]); }
        }
    }

    void apply(long[] into, long[] from) {
        switch (this) {
            case SUM -> { for (int i = 0; i < into.length; i++) into[i] += from[i]; }
            case MIN -> { for (int i = 0; i < into.length; i++) into[i] = Math.min(into[i], from[i]); }
            case MAX -> { for (int i = 0; i < into.length; i++) into[i] = Math.max(into[i], from[i]); }
        }
    }
}
