package dev.ballast.planner.model;

/** Where one GPU sits: its node (NVLink domain) and rack. Indices are the operator's, any non-negative ints. */
public record GpuPlace(int node, int rack) {
    public GpuPlace {
        if (node < 0 || rack < 0) {
            throw new IllegalArgumentException("node and rack must be >= 0, got node=" + node + " rack=" + rack);
        }
    }
}
