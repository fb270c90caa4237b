package dev.ballast.tools.trace;

import java.util.List;

/** A fully loaded trace. */
public final class MemoryTrace implements TraceSource {
    private final String name;
    private final TraceHeader header;
    private final long[] stepNumbers;
    private final List<int[][][]> steps;

    public MemoryTrace(String name, TraceHeader header, long[] stepNumbers, List<int[][][]> steps) {
        if (stepNumbers.length != steps.size()) {
            throw new IllegalArgumentException("step numbers and steps differ in length");
        }
        this.name = name;
        this.header = header;
        this.stepNumbers = stepNumbers.clone();
        this.steps = List.copyOf(steps);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public TraceHeader header() {
        return header;
    }

    @Override
    public int steps() {
        return stepNumbers.length;
    }

    @Override
    public long stepNumber(int i) {
        return stepNumbers[i];
    }

    @Override
    public int[][][] counts(int i) {
        int[][][] src = steps.get(i);
        int[][][] copy = new int[src.length][][];
        for (int l = 0; l < src.length; l++) {
            copy[l] = new int[src[l].length][];
            for (int s = 0; s < src[l].length; s++) {
                copy[l][s] = src[l][s].clone();
            }
        }
        return copy;
    }
}
