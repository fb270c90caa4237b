package dev.ballast.contracts.plan;

/**
 * Plan versions as the adoption rule's all-reduce sees them: one signed 64-bit integer per version,
 * {@code generation << 40 | sequence}, so that integer order is version order. Also the "g.s" text form.
 */
public final class PlanVersions {
    /** Sequences are below 2^40 (one plan per millisecond for 34 years); generations below 2^23. */
    public static final int SEQUENCE_BITS = 40;
    private static final long MAX_SEQUENCE = (1L << SEQUENCE_BITS) - 1;
    private static final long MAX_GENERATION = (1L << (63 - SEQUENCE_BITS)) - 1;

    /** Encoding of "no plan" for the newest slot: lower than every version, so MIN makes every rank keep its plan. */
    public static final long NONE = -1;

    private PlanVersions() {
    }

    public static long encode(PlanVersion v) {
        if (v == null) {
            return NONE;
        }
        if (v.sequence() > MAX_SEQUENCE || v.worldGeneration() > MAX_GENERATION) {
            throw new IllegalArgumentException("plan version " + v + " does not fit the 64-bit encoding");
        }
        return (v.worldGeneration() << SEQUENCE_BITS) | v.sequence();
    }

    /** Inverse of {@link #encode}; {@link #NONE} gives null. */
    public static PlanVersion decode(long x) {
        if (x == NONE) {
            return null;
        }
        if (x < 0) {
            throw new IllegalArgumentException("not an encoded plan version: " + x);
        }
        return new PlanVersion(x >>> SEQUENCE_BITS, x & MAX_SEQUENCE);
    }

    /** The static layout of a generation: sequence 0, which the balancer never publishes. */
    public static PlanVersion staticOf(long generation) {
        return new PlanVersion(generation, 0);
    }

    /**
     * Parses "generation.sequence", e.g. "3.17": two runs of ASCII digits, each below 2^63, joined by one dot (no sign,
     * no spaces), the same in every language (contracts/vectors/plan-versions.json).
     */
    public static PlanVersion parse(String s) {
        int dot = s == null ? -1 : s.indexOf('.');
        if (dot <= 0 || !digits(s, 0, dot) || !digits(s, dot + 1, s.length())) {
            throw new IllegalArgumentException("plan version must look like '<generation>.<sequence>', got '" + s + "'");
        }
        try {
            return new PlanVersion(Long.parseLong(s.substring(0, dot)), Long.parseLong(s.substring(dot + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("plan version '" + s + "' has a part of 2^63 or more");
        }
    }

    private static boolean digits(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return to > from;
    }
}
