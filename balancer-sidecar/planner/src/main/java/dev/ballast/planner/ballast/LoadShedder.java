package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;

import java.util.Arrays;

/**
 * The balancing greedy: while the busiest GPU's planned load is above the target (the mean, rounded up) by more than a
 * tolerance, move part of one of its experts (largest share first) to another copy of that expert with room, or open a
 * replica in a free slot on the node whose own tokens for the expert would stop crossing the network, net of refresh
 * bytes, NVLink (the source's node) on ties, then the GPU with most room. A GPU none of whose experts can shed is left
 * alone from then on.
 */
public final class LoadShedder {
    private final GroupTopology gt;
    private final SheddingState st;
    /** The state's planned loads, live (read in the hot loops without a call). */
    private final long[] load;
    private final long target;
    private final long tol;
    private final long[] nodeDemand;
    private final int nc;
    private final TrafficBytes bytes;
    /** Words of one bit per GPU, and bit g of nodeGpus[n * words + (g >>> 6)]: GPU g is on node n. */
    private final int words;
    private final long[] nodeGpus;
    /**
     * Whether an open GPU's room and index pack into one long (room << 15 | 32767 - GPU), and a GPU's load of an
     * expert and the expert (amount << 15 | 32767 - expert): rooms and amounts are at most the layer's tokens, below
     * 2^48, and there are at most 32768 GPUs and experts.
     */
    private final boolean packable;
    /** run's scratch: the nodes holding a copy of the expert being shed (all false between uses). */
    private final boolean[] covered;
    /** What a new copy is weighed by, on the expert's home node and elsewhere ({@link TrafficBytes#perReplica}). */
    private final double replicaBytesHome;
    private final double replicaBytesAway;

    /**
     * Whether run keeps each node's best open GPU ({@link #nodeBest}) between new copies instead of finding it afresh
     * for every one (false: the plain scan, for tests that compare the two).
     */
    private final boolean keepNodeBest;
    /**
     * Per node, packable only: the largest key room << 15 | 32767 - GPU over its open GPUs (-1: none), whoever holds
     * what, as of the last time the node was not {@link #nodeStale}; a node turns stale whenever a GPU of it gains or
     * loses load (every change of the open set or of a load goes through {@link #moved}, and every node is stale when a
     * run starts).
     */
    private final long[] nodeBest;
    private final boolean[] nodeStale;

    /** Sheds towards the mean of {@code demand}'s tokens over the group, within a thousandth of it. */
    public LoadShedder(GroupTopology gt, SheddingState st, LayerDemand demand, TrafficBytes bytes) {
        this(gt, st, demand, bytes, true);
    }

    /** As the public constructor; {@code keepNodeBest} false finds each node's best open GPU afresh every time. */
    LoadShedder(GroupTopology gt, SheddingState st, LayerDemand demand, TrafficBytes bytes, boolean keepNodeBest) {
        this.gt = gt;
        this.st = st;
        this.load = st.loads();
        this.target = (demand.allTokens() + gt.ep() - 1) / gt.ep();
        this.tol = target / 1000;
        this.nodeDemand = demand.nodeDemand();
        this.nc = gt.nodeCount();
        this.bytes = bytes;
        this.packable = gt.ep() <= (1 << 15) && st.experts() <= (1 << 15) && demand.allTokens() < (1L << 48);
        this.words = (gt.ep() + 63) >>> 6;
        this.nodeGpus = new long[nc * words];
        for (int g = 0; g < gt.ep(); g++) {
            nodeGpus[gt.nodeIndex(g) * words + (g >>> 6)] |= 1L << g;
        }
        this.covered = new boolean[nc];
        this.keepNodeBest = keepNodeBest;
        this.nodeBest = new long[nc];
        this.nodeStale = new boolean[nc];
        this.replicaBytesHome = bytes.perReplica(true);
        this.replicaBytesAway = bytes.perReplica(false);
    }

    /** The load shedding aims at: the mean load, rounded up. */
    public long target() {
        return target;
    }

    /** Sheds until the busiest GPU is within tolerance of the target or no GPU above it can shed. */
    public void run() {
        int ep = st.ep();
        int experts = st.experts();
        // The GPUs a new replica can go to: a free slot and load below target (kept up to date as loads move; every
        // GPU's bit is written here, so the state's scratch needs no clearing).
        long[] open = st.openScratch();
        for (int g = 0; g < ep; g++) {
            updateOpen(open, g);
        }
        Arrays.fill(nodeStale, true);
        // The busiest GPU not yet found stuck (no expert of it could shed).
        BusiestTree busiest = st.busiestTree();
        int guard = 4 * (st.slots() * ep + ep + experts) + 16;
        int[] candE = st.candidateExperts();
        long[] candA = st.candidateAmounts();
        boolean[] covered = this.covered;
        while (guard-- > 0) {
            int gmax = busiest.busiest();
            if (gmax < 0 || load[gmax] - target <= tol) {
                break;
            }
            long excess = load[gmax] - target;
            int n = packable ? st.loadKeysOn(gmax, candA) : st.expertsOn(gmax, candE, candA);
            long tried = Long.MAX_VALUE;
            boolean progress = false;
            // A new replica needs an open GPU; once balance has used them all up (most iterations near the end),
            // no expert of gmax can open one.
            boolean room = false;
            for (long w : open) {
                room |= w != 0;
            }
            for (int i = 0; i < n && !progress; i++) {
                int e;
                long a;
                if (packable) {
                    // The candidates in turn, largest amount first (lowest expert on ties), without sorting them: the
                    // next is the largest key below the last one tried, a branch-free max (the few tried usually end
                    // it, and a sort's comparisons are ones the branch predictor cannot guess).
                    long next = -1;
                    for (int j = 0; j < n; j++) {
                        long k = candA[j];
                        long below = (k - tried) >> 63;
                        next = Math.max(next, k & below | ~below);
                    }
                    tried = next;
                    e = 32767 - (int) (next & 32767);
                    a = next >>> 15;
                } else {
                    e = candE[i];
                    a = candA[i];
                }
                // Option 1: an existing copy with room.
                int bestG = -1;
                long bestSlack = 0;
                if (packable) {
                    // The copy with the most room (the first on ties) as the largest key room << 15 | 32767 - copy.
                    long most = -1;
                    for (int k = 0; k < st.copyCount(e); k++) {
                        int x = st.copyGpu(e, k);
                        long slack = target - load[x];
                        most = Math.max(most, x != gmax && slack > 0 ? slack << 15 | (32767 - k) : -1);
                    }
                    if (most >= 0) {
                        bestG = st.copyGpu(e, 32767 - (int) (most & 32767));
                        bestSlack = most >>> 15;
                    }
                } else {
                    for (int k = 0; k < st.copyCount(e); k++) {
                        int x = st.copyGpu(e, k);
                        long slack = target - load[x];
                        if (x != gmax && slack > bestSlack) {
                            bestG = x;
                            bestSlack = slack;
                        }
                    }
                }
                if (bestG >= 0) {
                    st.move(e, gmax, bestG, Math.min(Math.min(excess, a), bestSlack));
                    moved(open, busiest, gmax, bestG);
                    progress = true;
                    break;
                }
                // Option 2: open a replica.
                if (!room) {
                    continue;
                }
                long need = Math.min(excess, a);
                // covered is all false between uses: set for e's nodes here, cleared again right after.
                for (int k = 0; k < st.copyCount(e); k++) {
                    covered[gt.nodeIndex(st.copyGpu(e, k))] = true;
                }
                int homeNode = gt.nodeIndex(st.home(e));
                long useful = Math.max(1, Math.min(need, target) / 8);
                int t = chooseTarget(open, e, gmax, useful, covered, homeNode, keepNodeBest);
                for (int k = 0; k < st.copyCount(e); k++) {
                    covered[gt.nodeIndex(st.copyGpu(e, k))] = false;
                }
                if (t >= 0) {
                    st.addReplica(e, t);
                    st.move(e, gmax, t, Math.min(need, target - load[t]));
                    moved(open, busiest, gmax, t);
                    progress = true;
                }
            }
            if (!progress) {
                busiest.exclude(gmax);
            }
        }
    }

    /** After load moved from GPU {@code from} to GPU {@code to}: both re-read by the open set and the tree. */
    private void moved(long[] open, BusiestTree busiest, int from, int to) {
        nodeStale[gt.nodeIndex(from)] = true;
        nodeStale[gt.nodeIndex(to)] = true;
        updateOpen(open, from);
        updateOpen(open, to);
        busiest.update(from);
        busiest.update(to);
    }

    /** Sets or clears g's bit in {@code open}: whether it has a free slot and load below target. */
    private void updateOpen(long[] open, int g) {
        if (st.hasFreeSlot(g) && load[g] < target) {
            open[g >>> 6] |= 1L << g;
        } else {
            open[g >>> 6] &= ~(1L << g);
        }
    }

    /**
     * The GPU for a new copy of e shed from {@code src}: the best by {@link #betterTarget} among the {@code open} GPUs
     * (a free slot and load below target) without a copy of e that have room for a useful share ({@code useful} tokens
     * below target); if none has that much room, the best open one.
     * <p>
     * Every GPU of a node has the node's score and is as near the source, so only a node's GPU with the most room (the
     * earliest on ties) can win, and if it lacks a useful share's room so do the others: one candidate per node.
     */
    int chooseTarget(long[] open, int e, int src, long useful, boolean[] covered, int homeNode) {
        return chooseTarget(open, e, src, useful, covered, homeNode, false);
    }

    /**
     * {@link #chooseTarget(long[], int, int, long, boolean[], int)}; with {@code kept} (run's own open set only), each
     * node's candidate from {@link #nodeBest}, refreshed where stale: the best open GPU of a node is its best without a
     * copy of e unless it holds one itself (e has few copies), and only then is the node scanned without e's holders.
     */
    private int chooseTarget(long[] open, int e, int src, long useful, boolean[] covered, int homeNode, boolean kept) {
        int srcNode = gt.nodeIndex(src);
        int experts = st.experts();
        double tokenBytes = bytes.perToken();
        int best = -1;
        double bestScore = 0;
        long bestSlack = 0;
        int any = -1;
        double anyScore = 0;
        long anySlack = 0;
        for (int n = 0; n < nc; n++) {
            int g = -1;
            long slack = 0;
            if (packable) {
                // The node's candidate as room << 15 | 32767 - GPU, so that the most room, then the earliest GPU, is the
                // largest key: a branch-free max per GPU instead of a comparison the branch predictor cannot guess.
                long most = -1;
                if (kept) {
                    if (nodeStale[n]) {
                        nodeBest[n] = bestOpen(open, n, 0);
                        nodeStale[n] = false;
                    }
                    most = nodeBest[n];
                }
                if (!kept || most >= 0 && st.holds(e, 32767 - (int) (most & 32767))) {
                    most = bestOpen(open, n, e + 1);
                }
                if (most >= 0) {
                    g = 32767 - (int) (most & 32767);
                    slack = most >>> 15;
                }
            } else {
                for (int w = 0; w < words; w++) {
                    for (long bits = open[w] & nodeGpus[n * words + w] & ~st.heldWord(e, w); bits != 0; bits &= bits - 1) {
                        int x = (w << 6) + Long.numberOfTrailingZeros(bits);
                        if (g < 0 || target - load[x] > slack) {
                            g = x;
                            slack = target - load[x];
                        }
                    }
                }
            }
            if (g < 0) {
                continue;
            }
            double score = (covered[n] ? 0 : nodeDemand[n * experts + e] * tokenBytes)
                    - (n == homeNode ? replicaBytesHome : replicaBytesAway);
            if (slack >= useful && (best < 0 || betterTarget(srcNode, g, score, slack, best, bestScore, bestSlack))) {
                best = g;
                bestScore = score;
                bestSlack = slack;
            }
            if (any < 0 || betterTarget(srcNode, g, score, slack, any, anyScore, anySlack)) {
                any = g;
                anyScore = score;
                anySlack = slack;
            }
        }
        return best >= 0 ? best : any;
    }

    /**
     * The largest key room << 15 | 32767 - GPU among the {@code open} GPUs of node n, leaving out those holding expert
     * {@code withoutE} - 1 (0: none left out); -1 if there is none.
     */
    private long bestOpen(long[] open, int n, int withoutE) {
        long most = -1;
        for (int w = 0; w < words; w++) {
            long bits = open[w] & nodeGpus[n * words + w];
            if (withoutE > 0) {
                bits &= ~st.heldWord(withoutE - 1, w);
            }
            for (; bits != 0; bits &= bits - 1) {
                int x = (w << 6) + Long.numberOfTrailingZeros(bits);
                most = Math.max(most, (target - load[x]) << 15 | (32767 - x));
            }
        }
        return most;
    }

    /**
     * Higher score first (net bytes saved); on ties a GPU on the source's node, then more room; else the earlier GPU
     * (nodes need not be runs of GPUs, so the candidates of later nodes may come earlier).
     */
    private boolean betterTarget(int srcNode, int g, double score, long slack, int best, double bestScore, long bestSlack) {
        if (score != bestScore) {
            return score > bestScore;
        }
        boolean near = gt.nodeIndex(g) == srcNode;
        boolean bestNear = gt.nodeIndex(best) == srcNode;
        return near != bestNear ? near : slack != bestSlack ? slack > bestSlack : g < best;
    }
}
