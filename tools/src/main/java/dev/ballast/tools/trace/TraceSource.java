package dev.ballast.tools.trace;

/** A sequence of steps of routing counts, from a file or a seeded generator. */
public interface TraceSource {
    /** Name used in bench output (file name or synthetic scenario name). */
    String name();

    TraceHeader header();

    int steps();

    /** The step number of the i-th step (steps are in increasing order). */
    long stepNumber(int i);

    /** Counts of the i-th step: [layer][source][expert]. A fresh array the caller may keep. */
    int[][][] counts(int i);
}
