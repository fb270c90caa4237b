package dev.ballast.planner.ballast;

/**
 * The busiest of GPUs {@code 0 .. n-1} by the loads in an array the caller owns (the lowest index among equal loads),
 * as a tournament tree: {@link #update} after changing one load costs log2(n) comparisons, where asking by scanning
 * would cost n per question. GPUs can be excluded for good.
 */
final class BusiestTree {
    private final long[] load;
    private final int n;
    private final int leaves;
    /** winner[i] for i in [1, 2 * leaves): the busiest GPU under tree node i, -1 for none; leaf of GPU g at leaves + g. */
    private final int[] winner;

    BusiestTree(long[] load, int n) {
        this.load = load;
        this.n = n;
        this.leaves = Integer.highestOneBit(Math.max(1, n - 1)) << 1;
        this.winner = new int[2 * leaves];
        rebuild();
    }

    /** Re-reads every load and takes every GPU back in, as a new tree over the same array would. */
    void rebuild() {
        for (int i = 0; i < leaves; i++) {
            winner[leaves + i] = i < n ? i : -1;
        }
        for (int i = leaves - 1; i >= 1; i--) {
            winner[i] = better(winner[2 * i], winner[2 * i + 1]);
        }
    }

    /** The busiest GPU not excluded, or -1 if all are. */
    int busiest() {
        return winner[1];
    }

    /** Re-reads the load of GPU g (unless it is excluded). */
    void update(int g) {
        if (winner[leaves + g] >= 0) {
            replay(leaves + g);
        }
    }

    /** Leaves GPU g out of every later answer. */
    void exclude(int g) {
        winner[leaves + g] = -1;
        replay(leaves + g);
    }

    private void replay(int leaf) {
        for (int i = leaf >>> 1; i >= 1; i >>>= 1) {
            winner[i] = better(winner[2 * i], winner[2 * i + 1]);
        }
    }

    /** {@code a} covers lower indices than {@code b}, so it wins ties. */
    private int better(int a, int b) {
        if (a < 0) {
            return b;
        }
        if (b < 0) {
            return a;
        }
        return load[b] > load[a] ? b : a;
    }
}
