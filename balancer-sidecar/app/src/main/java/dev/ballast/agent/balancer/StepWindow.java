package dev.ballast.agent.balancer;

/**
 * The last {@link #CAPACITY} values measured of a world's steps, each with its step number, and their mean. Not
 * thread-safe.
 */
final class StepWindow {
    static final int CAPACITY = 32;

    private final long[] steps = new long[CAPACITY];
    private final double[] values = new double[CAPACITY];
    private int start;
    private int size;

    /** Adds the value of {@code step} (steps arrive in order); the oldest goes once the window is full. */
    void add(long step, double value) {
        if (size == CAPACITY) {
            start = (start + 1) % CAPACITY;
            size--;
        }
        int at = (start + size) % CAPACITY;
        steps[at] = step;
        values[at] = value;
        size++;
    }

    /** The mean of the values held; NaN when none. */
    double mean() {
        double sum = 0;
        for (int i = 0; i < size; i++) {
            sum += values[(start + i) % CAPACITY];
        }
        return size == 0 ? Double.NaN : sum / size;
    }

    /** Moves the values of steps {@code >= from} to {@code into}, in order. */
    void moveFrom(long from, StepWindow into) {
        int keep = 0;
        while (keep < size && steps[(start + keep) % CAPACITY] < from) {
            keep++;
        }
        for (int i = keep; i < size; i++) {
            into.add(steps[(start + i) % CAPACITY], values[(start + i) % CAPACITY]);
        }
        size = keep;
    }

    void clear() {
        size = 0;
    }

    int size() {
        return size;
    }
}
