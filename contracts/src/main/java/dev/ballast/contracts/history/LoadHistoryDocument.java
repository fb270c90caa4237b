package dev.ballast.contracts.history;

/**
 * The balancer's per-(layer, expert) load history as it persists it (ConfigMap {@code <job>-balancer-history}, key
 * {@link #CONFIG_MAP_KEY}; docs/contracts.md): the smoothed token totals per layer and expert over all GPUs, rounded to
 * integers, as of step {@code lastStep} of world generation {@code generation}, after {@code observedSteps} steps in
 * all. A restarted balancer plans the next world's first plan from it. Bounded: at most {@link #MAX_CELLS} layers ×
 * experts, so the encoded document stays well inside a ConfigMap's 1 MiB. {@code totals} is not copied: callers
 * must not change it afterwards.
 */
public record LoadHistoryDocument(String job, long generation, long lastStep, long observedSteps, long[][] totals) {
    public static final String CONFIG_MAP_KEY = "history.json";
    /** The format's name, written first, so a future format is refused with a clear message instead of misread. */
    public static final String FORMAT = "ballast-load-history/v1";
    /** The most layers × experts a history holds (65,536: e.g. 64 layers of 1,024 experts). */
    public static final int MAX_CELLS = 1 << 16;
    /** The longest encoded history accepted (a ConfigMap holds at most 1 MiB). */
    public static final int MAX_CHARS = 1_000_000;

    /** @throws IllegalArgumentException naming what is wrong */
    public LoadHistoryDocument {
        if (job == null || job.isEmpty()) {
            throw new IllegalArgumentException("job must not be empty");
        }
        if (generation < 0 || lastStep < 0 || observedSteps < 1) {
            throw new IllegalArgumentException("generation and lastStep must be at least 0 and observedSteps at least 1, got "
                    + generation + ", " + lastStep + ", " + observedSteps);
        }
        if (totals == null || totals.length == 0 || totals[0].length == 0) {
            throw new IllegalArgumentException("totals must hold at least one layer of at least one expert");
        }
        int experts = totals[0].length;
        if ((long) totals.length * experts > MAX_CELLS) {
            throw new IllegalArgumentException(totals.length + " layers × " + experts + " experts is more than the "
                    + MAX_CELLS + " a load history holds");
        }
        for (int l = 0; l < totals.length; l++) {
            if (totals[l].length != experts) {
                throw new IllegalArgumentException("totals[" + l + "] has " + totals[l].length + " experts, totals[0] has "
                        + experts);
            }
            for (int e = 0; e < experts; e++) {
                if (totals[l][e] < 0) {
                    throw new IllegalArgumentException("totals[" + l + "][" + e + "] is negative: " + totals[l][e]);
                }
            }
        }
    }

    public int layers() {
        return totals.length;
    }

    public int experts() {
        return totals[0].length;
    }
}
