package dev.ballast.planner.ballast;

import java.util.Arrays;

/** A binary max-heap of primitive longs (packed sort keys), so hot planner loops do not box. */
final class LongMaxHeap {
    private long[] a;
    private int n;

    LongMaxHeap(int capacity) {
        a = new long[Math.max(1, capacity)];
    }

    /** Empties the heap, keeping its array. */
    void clear() {
        n = 0;
    }

    boolean isEmpty() {
        return n == 0;
    }

    /** Adds {@code x} without restoring heap order; call {@link #heapify} before the next pop. */
    void add(long x) {
        if (n == a.length) {
            a = Arrays.copyOf(a, 2 * n);
        }
        a[n++] = x;
    }

    /** Restores heap order after {@link #add}s, bottom-up (linear time, against n log n for as many pushes). */
    void heapify() {
        for (int i = n / 2 - 1; i >= 0; i--) {
            siftDown(i, a[i]);
        }
    }

    void push(long x) {
        if (n == a.length) {
            a = Arrays.copyOf(a, 2 * n);
        }
        int i = n++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (a[parent] >= x) {
                break;
            }
            a[i] = a[parent];
            i = parent;
        }
        a[i] = x;
    }

    /** Removes and returns the largest element; the heap must not be empty. */
    long pop() {
        long top = a[0];
        siftDown(0, a[--n]);
        return top;
    }

    /** Puts {@code x} at {@code i} or below, where the larger child is no larger than it. */
    private void siftDown(int i, long x) {
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) {
                break;
            }
            // The larger child without a branch on the keys (which one it is, the predictor cannot guess).
            long right = child + 1 < n ? a[child + 1] : Long.MIN_VALUE;
            child += right > a[child] ? 1 : 0;
            if (a[child] <= x) {
                break;
            }
            a[i] = a[child];
            i = child;
        }
        a[i] = x;
    }
}
