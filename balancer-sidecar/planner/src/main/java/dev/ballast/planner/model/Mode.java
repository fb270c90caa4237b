package dev.ballast.planner.model;

import java.util.Locale;

/** How copies beyond the home experts are paid for (docs/quota-rule.md). */
public enum Mode {
    /** Home experts own weights and optimizer state; replicas are refreshed and return gradients every step. */
    REPLICATE,
    /** All expert state is sharded over the EP group; each step gathers what the plan materializes. */
    FSSDP;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Mode parse(String s) {
        for (Mode m : values()) {
            if (m.wireName().equals(s)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown mode '" + s + "' (replicate or fssdp)");
    }
}
