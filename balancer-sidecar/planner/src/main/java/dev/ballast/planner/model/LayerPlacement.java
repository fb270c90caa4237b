package dev.ballast.planner.model;

import java.util.Arrays;

/**
 * Which experts are materialized on each GPU of one EP group for one layer (EP-local GPU indices).
 * Canonical: each GPU's list is strictly ascending. Immutable; the per-expert copy table is derived.
 */
public final class LayerPlacement {
    private final int experts;
    private final int[][] gpuExperts;
    private final int[] copyStart;
    private final int[] copyGpu;

    private LayerPlacement(int experts, int[][] gpuExperts) {
        this.experts = experts;
        this.gpuExperts = gpuExperts;
        int[] count = new int[experts + 1];
        for (int[] list : gpuExperts) {
            for (int e : list) {
                count[e + 1]++;
            }
        }
        for (int e = 0; e < experts; e++) {
            count[e + 1] += count[e];
        }
        this.copyStart = count;
        this.copyGpu = new int[count[experts]];
        int[] fill = Arrays.copyOf(count, experts);
        // GPUs visited in ascending order, so each expert's copies come out ascending by GPU.
        for (int g = 0; g < gpuExperts.length; g++) {
            for (int e : gpuExperts[g]) {
                copyGpu[fill[e]++] = g;
            }
        }
    }

    /** Copies the lists, sorts them and drops duplicates; experts must be in [0, experts). */
    public static LayerPlacement of(int experts, int[][] gpuExperts) {
        int[][] lists = new int[gpuExperts.length][];
        for (int g = 0; g < gpuExperts.length; g++) {
            int[] l = gpuExperts[g].clone();
            Arrays.sort(l);
            int n = 0;
            for (int i = 0; i < l.length; i++) {
                if (l[i] < 0 || l[i] >= experts) {
                    throw new IllegalArgumentException("GPU " + g + ": expert " + l[i] + " outside [0, " + experts + ")");
                }
                if (n == 0 || l[n - 1] != l[i]) {
                    l[n++] = l[i];
                }
            }
            lists[g] = Arrays.copyOf(l, n);
        }
        return new LayerPlacement(experts, lists);
    }

    /**
     * Takes the lists as they are, without copying or sorting them, for a caller that builds them in canonical form
     * (each strictly ascending, experts in [0, experts)); checks that they are.
     */
    public static LayerPlacement ofAscending(int experts, int[][] gpuExperts) {
        for (int g = 0; g < gpuExperts.length; g++) {
            int[] l = gpuExperts[g];
            for (int i = 0; i < l.length; i++) {
                if (l[i] < 0 || l[i] >= experts || i > 0 && l[i] <= l[i - 1]) {
                    throw new IllegalArgumentException("GPU " + g + ": experts not strictly ascending in [0, " + experts
                            + "): " + Arrays.toString(l));
                }
            }
        }
        return new LayerPlacement(experts, gpuExperts);
    }

    /** The static layout for an EP group: each GPU holds its home experts only. */
    public static LayerPlacement staticLayout(int ep, int experts) {
        int[][] lists = new int[ep][];
        for (int g = 0; g < ep; g++) {
            int first = StaticLayout.firstExpert(g, ep, experts);
            int n = StaticLayout.homeCount(g, ep, experts);
            lists[g] = new int[n];
            for (int i = 0; i < n; i++) {
                lists[g][i] = first + i;
            }
        }
        return new LayerPlacement(experts, lists);
    }

    public int experts() {
        return experts;
    }

    public int gpus() {
        return gpuExperts.length;
    }

    /** Experts on GPU g, ascending (a copy; use {@link #expertCount} and {@link #expertAt} in hot loops). */
    public int[] expertsOn(int g) {
        return gpuExperts[g].clone();
    }

    public int expertCount(int g) {
        return gpuExperts[g].length;
    }

    public int expertAt(int g, int i) {
        return gpuExperts[g][i];
    }

    public boolean holds(int g, int expert) {
        return Arrays.binarySearch(gpuExperts[g], expert) >= 0;
    }

    /** Number of copies of expert e. */
    public int copies(int e) {
        return copyStart[e + 1] - copyStart[e];
    }

    /** Index into the flattened copy table where expert e's copies start (ascending GPU). */
    public int copyStart(int e) {
        return copyStart[e];
    }

    public int copyGpu(int copyIndex) {
        return copyGpu[copyIndex];
    }

    public int totalCopies() {
        return copyGpu.length;
    }

    /** Copies not on their static home GPU. */
    public int nonHomeCopies(int g) {
        // g's home experts are the contiguous range [first, next).
        int first = StaticLayout.firstExpert(g, gpuExperts.length, experts);
        int next = StaticLayout.firstExpert(g + 1, gpuExperts.length, experts);
        int n = 0;
        for (int e : gpuExperts[g]) {
            if (e < first || e >= next) {
                n++;
            }
        }
        return n;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LayerPlacement p && p.experts == experts && Arrays.deepEquals(p.gpuExperts, gpuExperts);
    }

    @Override
    public int hashCode() {
        return 31 * experts + Arrays.deepHashCode(gpuExperts);
    }

    @Override
    public String toString() {
        return Arrays.deepToString(gpuExperts);
    }
}
