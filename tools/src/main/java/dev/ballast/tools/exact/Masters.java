package dev.ballast.tools.exact;

import java.util.Locale;

/** Where the exact solver may put each expert's master (docs/cost-model.md, "Master migration"). */
public enum Masters {
    /**
     * On any GPU holding a copy of the expert; a master off its static home pays its one-off migration amortized over
     * the re-plan interval, as the bench charges EPLB's moved masters. Every plan the cost model scores is feasible.
     */
    FREE,
    /** At the static home, as every plan Ballast's own planners make holds them (the home keeps a copy). */
    HOME;

    public static Masters parse(String s) {
        return switch (s) {
            case "free" -> FREE;
            case "home" -> HOME;
            default -> throw new IllegalArgumentException("masters must be 'free' or 'home', got '" + s + "'");
        };
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
