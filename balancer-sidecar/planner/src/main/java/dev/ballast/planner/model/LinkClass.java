package dev.ballast.planner.model;

/** How two GPUs are connected, nearest first; the ordinal is the order copies are preferred in. */
public enum LinkClass {
    SAME_GPU,
    NVLINK,
    NETWORK,
    CROSS_RACK;

    private static final LinkClass[] VALUES = values();

    public static LinkClass of(int ordinal) {
        return VALUES[ordinal];
    }
}
