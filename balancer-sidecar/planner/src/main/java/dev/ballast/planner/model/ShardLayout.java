package dev.ballast.planner.model;

import java.util.Arrays;

/**
 * How one expert's bytes are split in an FSSDP EP group. The owners are the whole group (the default) or the GPUs of
 * one node ({@link LayerPlacement#shardRank}'s, by default the expert's static home's); the i-th owner of k (ascending
 * EP rank) holds {@code [floor(i × bytes / k), floor((i + 1) × bytes / k))}, so shards are uneven by at most one byte
 * among owners and empty elsewhere. Offsets ascend with the rank: a non-owner's empty range sits where the next
 * owner's begins.
 */
public final class ShardLayout {
    private final long bytesPerExpert;
    private final boolean[] owns;
    private final long[] offsets; // [ep + 1]

    /** The even layout: every GPU of the group owns a shard. */
    public ShardLayout(int ep, long bytesPerExpert) {
        this(ep, bytesPerExpert, null);
    }

    private ShardLayout(int ep, long bytesPerExpert, boolean[] owns) {
        if (ep <= 0 || bytesPerExpert <= 0) {
            throw new IllegalArgumentException("shard layout needs ep > 0 and bytes > 0");
        }
        this.bytesPerExpert = bytesPerExpert;
        if (owns == null) {
            owns = new boolean[ep];
            Arrays.fill(owns, true);
        }
        this.owns = owns;
        int k = 0;
        for (boolean o : owns) {
            k += o ? 1 : 0;
        }
        if (k == 0) {
            throw new IllegalArgumentException("a shard layout needs at least one owner");
        }
        this.offsets = new long[ep + 1];
        int below = 0;
        for (int g = 0; g <= ep; g++) {
            offsets[g] = Math.floorDiv((long) below * bytesPerExpert, k);
            below += g < ep && owns[g] ? 1 : 0;
        }
    }

    /**
     * Expert e's layout in placement {@code p}: over the GPUs whose {@code nodeOfRank} equals its
     * {@link LayerPlacement#shardRank}'s when {@code p} shards it by node, over the whole group otherwise.
     */
    public static ShardLayout of(LayerPlacement p, int e, int[] nodeOfRank, long bytesPerExpert) {
        int ep = p.gpus();
        if (nodeOfRank.length != ep) {
            throw new IllegalArgumentException("node table of " + nodeOfRank.length + " ranks for a group of " + ep);
        }
        if (!p.nodeSharded(e)) {
            return new ShardLayout(ep, bytesPerExpert);
        }
        int node = nodeOfRank[p.shardRank(e)];
        boolean[] owns = new boolean[ep];
        for (int g = 0; g < ep; g++) {
            owns[g] = nodeOfRank[g] == node;
        }
        return new ShardLayout(ep, bytesPerExpert, owns);
    }

    /** Start of GPU g's range (for a non-owner, where the next owner's begins); {@code offset(ep)} is the size. */
    public long offset(int g) {
        return offsets[g];
    }

    public long shardBytes(int g) {
        return offsets[g + 1] - offsets[g];
    }

    public boolean owns(int g) {
        return owns[g];
    }

    public int ep() {
        return owns.length;
    }

    public long bytesPerExpert() {
        return bytesPerExpert;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ShardLayout s && s.bytesPerExpert == bytesPerExpert && Arrays.equals(s.owns, owns);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(bytesPerExpert) * 31 + Arrays.hashCode(owns);
    }
}
