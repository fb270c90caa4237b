package dev.ballast.planner.model;

import java.util.Arrays;

/**
 * Which experts are materialized on each GPU of one EP group for one layer (EP-local GPU indices).
 * Canonical: each GPU's list is strictly ascending. Immutable; the per-expert copy table is derived.
 * <p>
 * Two optional facts describe a placement a planner made with physical expert slots (EPLB): how many physical
 * replicas each copy stands for (EPLB may put two replicas of one expert on one GPU; its runtime gives each replica
 * 1/k of the expert's tokens) and where each expert's master (weights of record with optimizer state) lives when it
 * is not the static home. Neither travels in the plan codecs; both are absent (one replica per copy, masters at home)
 * for every placement Ballast's own planners make.
 * <p>
 * In fssdp mode a placement also says how each expert's state is sharded ({@link ShardLayout}): over the whole group
 * (the default), or over the GPUs of one node only ({@link #withShardRanks}: the node of a given EP rank, by default
 * its static home's, {@link #withNodeShards}), so that copies on that node gather over NVLink. This one travels in the
 * plan codecs.
 */
public final class LayerPlacement {
    private final int experts;
    private final int[][] gpuExperts;
    private final int[] copyStart;
    private final int[] copyGpu;
    /** Physical replicas per copy index, or null for one each. */
    private final int[] replicas;
    /** Master GPU per expert, or null for the static home. */
    private final int[] masters;
    /**
     * Per expert: the EP rank whose node's GPUs hold its state (fssdp), -1 for the whole group; null for every expert
     * over the whole group.
     */
    private final int[] shardRanks;
    /**
     * Planned split weights ({@link #withRoutes}): [source × totalCopies + copy index], zero for single-copy experts;
     * null when the quota rule routes.
     */
    private final int[] routes;

    /** Largest sum of one (source, expert)'s route weights: count × weight stays below 2^63 for counts below 2^49. */
    public static final int ROUTE_WEIGHT_SUM_MAX = 1 << 14;

    private LayerPlacement(int experts, int[][] gpuExperts) {
        this(experts, gpuExperts, null, null);
    }

    private LayerPlacement(int experts, int[][] gpuExperts, int[] replicas, int[] masters) {
        this(experts, gpuExperts, replicas, masters, null);
    }

    private LayerPlacement(int experts, int[][] gpuExperts, int[] replicas, int[] masters, int[] shardRanks) {
        this(experts, gpuExperts, replicas, masters, shardRanks, null);
    }

    private LayerPlacement(int experts, int[][] gpuExperts, int[] replicas, int[] masters, int[] shardRanks,
                           int[] routes) {
        this.experts = experts;
        this.routes = routes;
        this.gpuExperts = gpuExperts;
        this.replicas = replicas;
        this.masters = masters;
        this.shardRanks = shardRanks;
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
        // GPUs visited in ascending order, so each expert's copies come out ascending by GPU. count[e] serves as expert
        // e's cursor (no copy of the starts to fill from: an array fewer per placement); afterwards count[e] is where
        // expert e + 1 starts, so the starts move up one place back.
        for (int g = 0; g < gpuExperts.length; g++) {
            for (int e : gpuExperts[g]) {
                copyGpu[count[e]++] = g;
            }
        }
        System.arraycopy(count, 0, count, 1, experts);
        count[0] = 0;
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
     * A placement from physical expert slots, {@code gpuSlots[g]} listing the expert of each of GPU g's slots: an
     * expert in several slots of one GPU becomes one copy standing for that many replicas ({@link #replicas}).
     */
    public static LayerPlacement ofPhysicalSlots(int experts, int[][] gpuSlots) {
        LayerPlacement distinct = of(experts, gpuSlots);
        int[] replicas = new int[distinct.totalCopies()];
        boolean duplicated = false;
        for (int g = 0; g < gpuSlots.length; g++) {
            for (int e : gpuSlots[g]) {
                int c = distinct.copyIndex(g, e);
                duplicated |= replicas[c] > 0;
                replicas[c]++;
            }
        }
        return duplicated ? new LayerPlacement(experts, distinct.gpuExperts, replicas, null) : distinct;
    }

    /**
     * This placement with expert e's master on GPU {@code masters[e]}; each master GPU must hold a copy of its expert.
     * Masters all at their static home give a placement equal to one without masters.
     */
    public LayerPlacement withMasters(int[] masters) {
        if (masters.length != experts) {
            throw new IllegalArgumentException("masters: " + masters.length + " entries for " + experts + " experts");
        }
        boolean moved = false;
        for (int e = 0; e < experts; e++) {
            int g = masters[e];
            if (g < 0 || g >= gpus() || !holds(g, e)) {
                throw new IllegalArgumentException("master of expert " + e + " on GPU " + g + ", which holds no copy of it");
            }
            moved |= g != StaticLayout.home(e, gpus(), experts);
        }
        return new LayerPlacement(experts, gpuExperts, replicas, moved ? masters.clone() : null, shardRanks, routes);
    }

    /**
     * This placement with expert e's state sharded over its static home's node when {@code nodeSharded[e]}, over the
     * whole group otherwise. All false gives a placement equal to one without node shards.
     */
    public LayerPlacement withNodeShards(boolean[] nodeSharded) {
        if (nodeSharded.length != experts) {
            throw new IllegalArgumentException("node shards: " + nodeSharded.length + " entries for " + experts + " experts");
        }
        int[] ranks = new int[experts];
        for (int e = 0; e < experts; e++) {
            ranks[e] = nodeSharded[e] ? StaticLayout.home(e, gpus(), experts) : -1;
        }
        return withShardRanks(ranks);
    }

    /**
     * This placement with expert e's state sharded over the GPUs of EP rank {@code ranks[e]}'s node, over the whole
     * group where it is -1. All -1 gives a placement equal to one without node shards. Which GPUs share a node is the
     * group's topology, not the placement's: two ranks of one node give the same layout, and planners name a node by its
     * expert's static home where the home is on it, else by its lowest rank, so that equal layouts compare equal.
     */
    public LayerPlacement withShardRanks(int[] ranks) {
        if (ranks.length != experts) {
            throw new IllegalArgumentException("shard ranks: " + ranks.length + " entries for " + experts + " experts");
        }
        boolean any = false;
        for (int e = 0; e < experts; e++) {
            if (ranks[e] < -1 || ranks[e] >= gpus()) {
                throw new IllegalArgumentException("expert " + e + " sharded over the node of rank " + ranks[e]
                        + ", outside the group's " + gpus() + " GPUs");
            }
            any |= ranks[e] >= 0;
        }
        return new LayerPlacement(experts, gpuExperts, replicas, masters, any ? ranks.clone() : null, routes);
    }

    /**
     * This placement with a planned split (docs/quota-rule.md, "Planned split"): source s sends expert e's tokens to
     * e's copies in proportion to {@code weights[s * totalCopies() + c]} over e's copy indices c, instead of by the
     * quota rule. Entries of single-copy experts must be 0; each (source, multi-copy expert) must weigh its copies
     * with non-negative integers summing to 1..{@link #ROUTE_WEIGHT_SUM_MAX}. Null removes the split.
     */
    public LayerPlacement withRoutes(int[] weights) {
        if (weights == null) {
            return new LayerPlacement(experts, gpuExperts, replicas, masters, shardRanks, null);
        }
        int copies = totalCopies();
        int ep = gpus();
        if (weights.length != ep * copies) {
            throw new IllegalArgumentException("routes: " + weights.length + " weights for " + ep + " sources x "
                    + copies + " copies");
        }
        if (replicas != null) {
            throw new IllegalArgumentException("routes: a placement with duplicate replicas is routed by its equal split");
        }
        for (int s = 0; s < ep; s++) {
            for (int e = 0; e < experts; e++) {
                long sum = 0;
                for (int c = copyStart[e]; c < copyStart[e + 1]; c++) {
                    int w = weights[s * copies + c];
                    if (w < 0 || copies(e) == 1 && w != 0) {
                        throw new IllegalArgumentException("routes: source " + s + ", expert " + e + ": weight " + w
                                + (w < 0 ? " is negative" : " on a single copy (must be 0)"));
                    }
                    sum += w;
                }
                if (copies(e) > 1 && (sum < 1 || sum > ROUTE_WEIGHT_SUM_MAX)) {
                    throw new IllegalArgumentException("routes: source " + s + ", expert " + e + ": weights sum to "
                            + sum + ", outside 1.." + ROUTE_WEIGHT_SUM_MAX);
                }
            }
        }
        return new LayerPlacement(experts, gpuExperts, replicas, masters, shardRanks, weights.clone());
    }

    /**
     * {@link #withRoutes} from the plan codecs' form: per source, the weights of every multi-copy expert's copies
     * (experts ascending, each expert's copies by ascending GPU).
     */
    public LayerPlacement withRouteLists(int[][] perSource) {
        int ep = gpus();
        if (perSource.length != ep) {
            throw new IllegalArgumentException("routes: " + perSource.length + " sources, expected ep=" + ep);
        }
        int copies = totalCopies();
        int[] weights = new int[ep * copies];
        for (int s = 0; s < ep; s++) {
            int i = 0;
            for (int e = 0; e < experts; e++) {
                if (copies(e) < 2) {
                    continue;
                }
                for (int c = copyStart[e]; c < copyStart[e + 1]; c++, i++) {
                    if (i < perSource[s].length) {
                        weights[s * copies + c] = perSource[s][i];
                    }
                }
            }
            if (i != perSource[s].length) {
                throw new IllegalArgumentException("routes of source " + s + ": " + perSource[s].length
                        + " weights for " + i + " copies of multi-copy experts");
            }
        }
        return withRoutes(weights);
    }

    /** Copies of multi-copy experts: the length of each source's list in the plan codecs' form of a planned split. */
    public int routedCopies() {
        int n = 0;
        for (int e = 0; e < experts; e++) {
            n += copies(e) > 1 ? copies(e) : 0;
        }
        return n;
    }

    /** The planned split in the plan codecs' form ({@link #withRouteLists}), or null without one. */
    public int[][] routeLists() {
        if (routes == null) {
            return null;
        }
        int ep = gpus();
        int[][] out = new int[ep][routedCopies()];
        for (int s = 0; s < ep; s++) {
            int i = 0;
            for (int e = 0; e < experts; e++) {
                if (copies(e) > 1) {
                    for (int c = copyStart[e]; c < copyStart[e + 1]; c++) {
                        out[s][i++] = routes[s * copyGpu.length + c];
                    }
                }
            }
        }
        return out;
    }

    /** Whether a planned split routes this placement's tokens (else the quota rule does). */
    public boolean hasRoutes() {
        return routes != null;
    }

    /** The planned split's weight of copy {@code copyIndex} for {@code source} (0 without routes). */
    public int routeWeight(int source, int copyIndex) {
        return routes == null ? 0 : routes[source * copyGpu.length + copyIndex];
    }

    /** Whether expert e's state is sharded over one node only (else over the whole group). */
    public boolean nodeSharded(int e) {
        return shardRanks != null && shardRanks[e] >= 0;
    }

    /** The EP rank whose node's GPUs hold expert e's state, or -1 when the whole group does. */
    public int shardRank(int e) {
        return shardRanks == null ? -1 : shardRanks[e];
    }

    /** Whether some expert's state is sharded over one node only. */
    public boolean hasNodeShards() {
        return shardRanks != null;
    }

    /** Whether some node-sharded expert names a rank other than its static home (a plan-format v3 layout). */
    public boolean hasShardsAwayFromHome() {
        if (shardRanks == null) {
            return false;
        }
        for (int e = 0; e < experts; e++) {
            if (shardRanks[e] >= 0 && shardRanks[e] != StaticLayout.home(e, gpus(), experts)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code o} is this placement or one derived from it by {@link #withNodeShards}, {@link #withMasters} or
     * {@link #withRoutes}:
     * the same copies, by identity (an O(1) check for callers that cache work per placement that shards do not change).
     */
    public boolean sameCopiesAs(LayerPlacement o) {
        return o != null && o.gpuExperts == gpuExperts;
    }

    /** Whether every expert is sharded as in {@code o} (same expert count assumed). */
    public boolean sameShards(LayerPlacement o) {
        return Arrays.equals(shardRanks, o.shardRanks);
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

    /** Index of GPU g's copy of expert e in the copy table, or -1 when g holds none. */
    public int copyIndex(int g, int e) {
        for (int c = copyStart[e]; c < copyStart[e + 1]; c++) {
            if (copyGpu[c] == g) {
                return c;
            }
        }
        return -1;
    }

    /** Physical replicas the copy stands for (1 unless built by {@link #ofPhysicalSlots} with a duplicate). */
    public int replicas(int copyIndex) {
        return replicas == null ? 1 : replicas[copyIndex];
    }

    /** Physical replicas of expert e over all its copies. */
    public int physicalReplicas(int e) {
        if (replicas == null) {
            return copies(e);
        }
        int n = 0;
        for (int c = copyStart[e]; c < copyStart[e + 1]; c++) {
            n += replicas[c];
        }
        return n;
    }

    /** Physical replicas on GPU g (its expert count unless a copy stands for several). */
    public int physicalSlots(int g) {
        if (replicas == null) {
            return gpuExperts[g].length;
        }
        int n = 0;
        for (int e : gpuExperts[g]) {
            n += replicas[copyIndex(g, e)];
        }
        return n;
    }

    /** Whether some copy stands for more than one physical replica. */
    public boolean hasDuplicateReplicas() {
        return replicas != null;
    }

    /** The GPU holding expert e's master: its static home unless {@link #withMasters} moved it. */
    public int master(int e) {
        return masters == null ? StaticLayout.home(e, gpuExperts.length, experts) : masters[e];
    }

    /** Whether some master is off its static home. */
    public boolean hasMovedMasters() {
        return masters != null;
    }

    /** Masters GPU g holds. */
    public int mastersOn(int g) {
        if (masters == null) {
            return StaticLayout.homeCount(g, gpuExperts.length, experts);
        }
        int n = 0;
        for (int m : masters) {
            n += m == g ? 1 : 0;
        }
        return n;
    }

    /** Physical replicas on GPU g that are not the master's own copy (each holds working weights and a gradient). */
    public int workingReplicas(int g) {
        int n = 0;
        for (int i = 0; i < gpuExperts[g].length; i++) {
            int e = gpuExperts[g][i];
            int r = replicas == null ? 1 : replicas[copyIndex(g, e)];
            n += master(e) == g ? r - 1 : r;
        }
        return n;
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
        return o instanceof LayerPlacement p && p.experts == experts && Arrays.deepEquals(p.gpuExperts, gpuExperts)
                && Arrays.equals(p.replicas, replicas) && Arrays.equals(p.masters, masters)
                && Arrays.equals(p.shardRanks, shardRanks) && Arrays.equals(p.routes, routes);
    }

    @Override
    public int hashCode() {
        int h = 31 * experts + Arrays.deepHashCode(gpuExperts);
        if (replicas != null || masters != null || shardRanks != null) {
            h = 31 * (31 * (31 * h + Arrays.hashCode(replicas)) + Arrays.hashCode(masters)) + Arrays.hashCode(shardRanks);
        }
        return routes == null ? h : 31 * h + Arrays.hashCode(routes);
    }

    @Override
    public String toString() {
        return Arrays.deepToString(gpuExperts);
    }
}
