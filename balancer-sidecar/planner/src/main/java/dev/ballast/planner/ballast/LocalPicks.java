package dev.ballast.planner.ballast;

/**
 * The local replicas {@link LocalReplicas#place} opened on a fresh state, in order (expert, GPU and tokens shifted),
 * to replay on another fresh state: an unseeded greedy's first k picks do not depend on how many follow, so a
 * candidate with fewer local replicas replays the first of another's instead of picking again.
 */
public final class LocalPicks {
    private final int[] expert;
    private final int[] gpu;
    private final long[] tokens;
    private int n;
    private boolean recorded;

    /** Room for {@code capacity} picks. */
    public LocalPicks(int capacity) {
        expert = new int[capacity];
        gpu = new int[capacity];
        tokens = new long[capacity];
    }

    /** Whether a placement has recorded its picks (all it made) here. */
    public boolean recorded() {
        return recorded;
    }

    public int count() {
        return n;
    }

    void add(int e, int g, long d) {
        expert[n] = e;
        gpu[n] = g;
        tokens[n++] = d;
    }

    void done() {
        recorded = true;
    }

    /** Applies the first {@code limit} picks (all there are, if fewer) to a fresh state. */
    public void replay(SheddingState st, int limit) {
        if (limit > expert.length) {
            throw new IllegalArgumentException("recorded " + expert.length + " picks at most, asked for " + limit);
        }
        for (int i = 0; i < Math.min(limit, n); i++) {
            st.addReplica(expert[i], gpu[i]);
            st.shift(expert[i], gpu[i], tokens[i]);
        }
    }
}
