package dev.ballast.planner.ballast;

import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.StaticLayout;

import java.util.Arrays;

/**
 * The placement the shedding greedy builds: each expert's copies and the load each is planned to carry, each GPU's
 * load and replicas. Copy 0 of every expert is its static home; at most {@code slots} replicas per GPU. Loads are
 * planned loads (what shedding balances), not the quota rule's.
 */
public final class SheddingState {
    private final int ep;
    private final int experts;
    private final int slots;
    private final long[] load;
    private final int[] copies;
    private final int[][] gpuOf;
    private final long[][] amount;
    private final int[][] replicasOn;
    private final int[] replicaCount;
    /** Words of one bit per GPU. */
    private final int words;
    /** Bit g of held[e * words + (g >>> 6)]: GPU g has a copy of expert e (as words, for the shedder's set algebra). */
    private final long[] held;
    /**
     * The static layout of this shape, looked up instead of divided out in the hot loops: GPU g's homes are experts
     * firstHome[g] to firstHome[g + 1] - 1, and expert e's home is homeOf[e].
     */
    private final int[] firstHome;
    private final int[] homeOf;
    /**
     * Scratch of the greedies that run on this state, kept with it so that a thread's layers allocate none (fresh
     * memory is memory the cache has not seen): the shedder's busiest-GPU tree over {@link #load}, its set of open
     * GPUs and candidate lists, the local replicas' queue and the parameter budget's byte counts.
     */
    private final BusiestTree busiest;
    private final long[] open;
    private final int[] candE;
    private final long[] candA;
    private final LongMaxHeap pairs;
    private final double[] budgetBytes;
    private final int[] expertScratch;

    /** The thread's last state, kept for the next shed of the same shape (a plan sheds several times per layer). */
    private static final ThreadLocal<SheddingState> LAST = new ThreadLocal<>();

    /**
     * A state with every expert on its home only, carrying its total in {@code demand}; reuses the thread's previous one
     * when the shape matches (so a state is valid until the next {@code fresh} on its thread).
     */
    public static SheddingState fresh(int ep, int experts, int slots, LayerDemand demand) {
        SheddingState st = LAST.get();
        if (st == null || st.ep != ep || st.experts != experts || st.slots != slots) {
            st = new SheddingState(ep, experts, slots);
            LAST.set(st);
        }
        st.reset(demand);
        return st;
    }

    private SheddingState(int ep, int experts, int slots) {
        this.ep = ep;
        this.experts = experts;
        this.slots = slots;
        this.load = new long[ep];
        this.copies = new int[experts];
        this.gpuOf = new int[experts][];
        this.amount = new long[experts][];
        this.replicasOn = new int[ep][slots];
        this.replicaCount = new int[ep];
        this.words = (ep + 63) >>> 6;
        this.held = new long[experts * words];
        for (int e = 0; e < experts; e++) {
            gpuOf[e] = new int[2];
            amount[e] = new long[2];
        }
        this.firstHome = new int[ep + 1];
        for (int g = 0; g <= ep; g++) {
            firstHome[g] = StaticLayout.firstExpert(g, ep, experts);
        }
        this.homeOf = StaticLayout.homes(ep, experts);
        this.busiest = new BusiestTree(load, ep);
        this.open = new long[(ep + 63) >>> 6];
        this.candE = new int[StaticLayout.maxHomeCount(ep, experts) + slots];
        this.candA = new long[candE.length];
        this.pairs = new LongMaxHeap(experts);
        this.budgetBytes = new double[ParameterBudget.length(ep)];
        this.expertScratch = new int[experts];
    }

    /** The busiest-GPU tree over the loads, rebuilt from them (every GPU in). */
    BusiestTree busiestTree() {
        busiest.rebuild();
        return busiest;
    }

    /** Scratch bitset of one bit per GPU (contents left over from its last use). */
    long[] openScratch() {
        return open;
    }

    /** Scratch for {@link #expertsOn}: room for every expert one GPU can hold. */
    int[] candidateExperts() {
        return candE;
    }

    long[] candidateAmounts() {
        return candA;
    }

    /** Scratch of one int per expert (contents left over from its last use). */
    int[] expertScratch() {
        return expertScratch;
    }

    /** An empty heap for the local replicas' queue. */
    LongMaxHeap pairQueue() {
        pairs.clear();
        return pairs;
    }

    /** Scratch for a {@link ParameterBudget} of this group (contents left over from its last use). */
    double[] budgetScratch() {
        return budgetBytes;
    }

    private void reset(LayerDemand demand) {
        Arrays.fill(load, 0);
        Arrays.fill(replicaCount, 0);
        Arrays.fill(held, 0);
        for (int e = 0; e < experts; e++) {
            int h = homeOf[e];
            long t = demand.total(e);
            gpuOf[e][0] = h;
            setHeld(e, h);
            amount[e][0] = t;
            copies[e] = 1;
            load[h] += t;
        }
    }

    public int ep() {
        return ep;
    }

    public int experts() {
        return experts;
    }

    /** Replica slots per GPU. */
    public int slots() {
        return slots;
    }

    /** GPU g's planned load. */
    public long load(int g) {
        return load[g];
    }

    /** The loads as the busiest-GPU tree reads them: live, not a copy (read only). */
    long[] loads() {
        return load;
    }

    /** Expert e's static home (copy 0's GPU). */
    public int home(int e) {
        return homeOf[e];
    }

    public int copyCount(int e) {
        return copies[e];
    }

    /** The GPU of expert e's copy k (copy 0 is its home). */
    public int copyGpu(int e, int k) {
        return gpuOf[e][k];
    }

    /** The load expert e's copy k carries. */
    public long copyLoad(int e, int k) {
        return amount[e][k];
    }

    public int replicaCount(int g) {
        return replicaCount[g];
    }

    public boolean hasFreeSlot(int g) {
        return replicaCount[g] < slots;
    }

    public boolean holds(int e, int g) {
        return (held[e * words + (g >>> 6)] & 1L << g) != 0;
    }

    /** Word w of the set of GPUs holding a copy of e: bit g - 64 w is GPU g. */
    long heldWord(int e, int w) {
        return held[e * words + w];
    }

    private void setHeld(int e, int g) {
        held[e * words + (g >>> 6)] |= 1L << g;
    }

    private void clearHeld(int e, int g) {
        held[e * words + (g >>> 6)] &= ~(1L << g);
    }

    /** Opens a replica of e on g (which must not hold e and must have a free slot); it carries nothing yet. */
    public void addReplica(int e, int g) {
        if (copies[e] == gpuOf[e].length) {
            gpuOf[e] = Arrays.copyOf(gpuOf[e], copies[e] * 2);
            amount[e] = Arrays.copyOf(amount[e], copies[e] * 2);
        }
        gpuOf[e][copies[e]] = g;
        setHeld(e, g);
        amount[e][copies[e]] = 0;
        copies[e]++;
        replicasOn[g][replicaCount[g]++] = e;
    }

    /** Moves {@code m} of expert e's load from its copy on {@code from} to its copy on {@code to}. */
    public void move(int e, int from, int to, long m) {
        int[] gpu = gpuOf[e];
        long[] carried = amount[e];
        for (int k = 0; k < copies[e]; k++) {
            // Conditional adds, not branches: where the two copies sit is what the branch predictor cannot guess.
            int x = gpu[k];
            carried[k] += x == from ? -m : x == to ? m : 0;
        }
        load[from] -= m;
        load[to] += m;
    }

    /**
     * Experts with load on g into {@code out} as keys amount << 15 | 32767 - expert, in no order (the largest key is the
     * largest amount, then the lowest expert); how many. For amounts below 2^48 and at most 32768 experts.
     */
    int loadKeysOn(int g, long[] out) {
        // Each key is written and counted only if it carries load: a conditional count, not a branch on the amounts
        // (which the predictor cannot guess). out has room for every home and replica of g, so a key written past the
        // count is overwritten or ignored.
        int n = 0;
        for (int e = firstHome[g]; e < firstHome[g + 1]; e++) {
            long a = amount[e][0];
            out[n] = a << 15 | (32767 - e);
            n += a > 0 ? 1 : 0;
        }
        int[] on = replicasOn[g];
        for (int i = 0; i < replicaCount[g]; i++) {
            int e = on[i];
            int[] gpu = gpuOf[e];
            long[] carried = amount[e];
            // g holds one copy of e: the first copy after the home on g.
            int k = 1;
            while (gpu[k] != g) {
                k++;
            }
            long a = carried[k];
            out[n] = a << 15 | (32767 - e);
            n += a > 0 ? 1 : 0;
        }
        return n;
    }

    /** Experts with load on g into {@code outE}/{@code outA}, largest amount first (lowest expert on ties); how many. */
    public int expertsOn(int g, int[] outE, long[] outA) {
        int n = 0;
        int first = firstHome[g];
        int homes = firstHome[g + 1] - first;
        for (int i = 0; i < homes; i++) {
            int e = first + i;
            if (amount[e][0] > 0) {
                outE[n] = e;
                outA[n++] = amount[e][0];
            }
        }
        for (int i = 0; i < replicaCount[g]; i++) {
            int e = replicasOn[g][i];
            for (int k = 1; k < copies[e]; k++) {
                if (gpuOf[e][k] == g && amount[e][k] > 0) {
                    outE[n] = e;
                    outA[n++] = amount[e][k];
                }
            }
        }
        for (int i = 1; i < n; i++) {
            int e = outE[i];
            long a = outA[i];
            int j = i - 1;
            while (j >= 0 && (outA[j] < a || (outA[j] == a && outE[j] > e))) {
                outE[j + 1] = outE[j];
                outA[j + 1] = outA[j];
                j--;
            }
            outE[j + 1] = e;
            outA[j + 1] = a;
        }
        return n;
    }

    /** Moves up to {@code d} of expert e's load from its most loaded copy to its copy on GPU g. */
    public void shift(int e, int g, long d) {
        long[] carried = amount[e];
        int from = 0;
        long most = carried[0];
        for (int k = 1; k < copies[e]; k++) {
            boolean more = carried[k] > most;
            from = more ? k : from;
            most = Math.max(most, carried[k]);
        }
        int fromGpu = gpuOf[e][from];
        long m = Math.min(d, amount[e][from]);
        if (fromGpu != g && m > 0) {
            move(e, fromGpu, g, m);
        }
    }

    /** Drops replicas that carry no load; returns how many. */
    public int pruneUnused() {
        int dropped = 0;
        for (int e = 0; e < experts; e++) {
            int w = 1;
            for (int k = 1; k < copies[e]; k++) {
                if (amount[e][k] > 0) {
                    gpuOf[e][w] = gpuOf[e][k];
                    amount[e][w++] = amount[e][k];
                } else {
                    clearHeld(e, gpuOf[e][k]);
                    dropped++;
                }
            }
            copies[e] = w;
        }
        if (dropped > 0) {
            Arrays.fill(replicaCount, 0);
            for (int e = 0; e < experts; e++) {
                for (int k = 1; k < copies[e]; k++) {
                    int g = gpuOf[e][k];
                    replicasOn[g][replicaCount[g]++] = e;
                }
            }
        }
        return dropped;
    }

    /** The placement: each GPU's list built ascending, its replicas (never one of its homes) merged into its home range. */
    public LayerPlacement toPlacement() {
        int[][] lists = new int[ep][];
        int[] reps = new int[slots];
        for (int g = 0; g < ep; g++) {
            int first = firstHome[g];
            int homes = firstHome[g + 1] - first;
            int n = replicaCount[g];
            System.arraycopy(replicasOn[g], 0, reps, 0, n);
            // An insertion sort in place: a GPU has a slot or two (a library sort's call costs more than the sort).
            for (int i = 1; i < n; i++) {
                int x = reps[i];
                int j = i - 1;
                while (j >= 0 && reps[j] > x) {
                    reps[j + 1] = reps[j];
                    j--;
                }
                reps[j + 1] = x;
            }
            int[] l = new int[homes + n];
            int k = 0;
            int r = 0;
            while (r < n && reps[r] < first) {
                l[k++] = reps[r++];
            }
            for (int i = 0; i < homes; i++) {
                l[k++] = first + i;
            }
            while (r < n) {
                l[k++] = reps[r++];
            }
            lists[g] = l;
        }
        return LayerPlacement.ofAscending(experts, lists);
    }
}
