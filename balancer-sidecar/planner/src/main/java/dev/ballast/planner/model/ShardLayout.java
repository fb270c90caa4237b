package dev.ballast.planner.model;

/**
 * FSSDP shard layout, fixed for a world generation: every expert's bytes are split over the EP group,
 * GPU g owning [offset(g), offset(g+1)) with offset(g) = floor(g × bytes / EP). Shards are uneven by at most one byte.
 */
public final class ShardLayout {
    private final int ep;
    private final long bytesPerExpert;

    public ShardLayout(int ep, long bytesPerExpert) {
        if (ep <= 0 || bytesPerExpert <= 0) {
            throw new IllegalArgumentException("shard layout needs ep > 0 and bytes > 0");
        }
        this.ep = ep;
        this.bytesPerExpert = bytesPerExpert;
    }

    public long offset(int g) {
        return Math.floorDiv((long) g * bytesPerExpert, ep);
    }

    public long shardBytes(int g) {
        return offset(g + 1) - offset(g);
    }

    public int ep() {
        return ep;
    }

    public long bytesPerExpert() {
        return bytesPerExpert;
    }
}
