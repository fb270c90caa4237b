package dev.ballast.planner.planners;

import java.util.Arrays;

/** A binary max-heap of primitive longs (packed sort keys), so hot planner loops do not box. */
final class LongMaxHeap {
    private long[] a;
    private int n;

    LongMaxHeap(int capacity) {
        a = new long[Math.max(1, capacity)];
    }

    boolean isEmpty() {
        return n == 0;
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
        long x = a[--n];
        int i = 0;
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) {
                break;
            }
            if (child + 1 < n && a[child + 1] > a[child]) {
                child++;
            }
            if (a[child] <= x) {
                break;
            }
            a[i] = a[child];
            i = child;
        }
        a[i] = x;
        return top;
    }
}
