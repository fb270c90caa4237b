package dev.ballast.collectives;

/** Offsets of contiguous shards: shard r is [offsets[r], offsets[r + 1]). */
final class Shards {
    private Shards() {
    }

    /** {@code count} elements over {@code parts} shards whose sizes differ by at most one, larger ones last. */
    static int[] even(int count, int parts) {
        int[] offsets = new int[parts + 1];
        for (int r = 0; r <= parts; r++) offsets[r] = (int) ((long) r * count / parts);
        return offsets;
    }

    /** The offsets of shards of the given sizes. */
    static int[] of(int[] sizes) {
        int[] offsets = new int[sizes.length + 1];
        for (int r = 0; r < sizes.length; r++) {
            if (sizes[r] < 0) throw new IllegalArgumentException("shard " + r + " has negative size " + sizes[r]);
            offsets[r + 1] = offsets[r] + sizes[r];
        }
        return offsets;
    }
}
