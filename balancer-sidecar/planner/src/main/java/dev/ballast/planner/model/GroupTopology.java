package dev.ballast.planner.model;

/**
 * One EP group seen from inside: EP-local GPU index → global GPU, node and rack, and the link class of every pair.
 * Everything per-layer (quota rule, planners, cost model) works on EP-local indices through this.
 */
public final class GroupTopology {
    private final int[] globalGpu;
    private final int[] node;
    private final int[] rack;
    private final byte[] linkClass; // [a * ep + b]
    private final int nodeCount;
    private final int[] nodeIndex; // dense node id in [0, nodeCount), ordered by first appearance
    private final Hardware hardware;
    private final int rackCount;
    private final int[] rackIndex; // dense rack id, ordered by first appearance
    // EP ranks grouped by dense node (rack) id, ascending within a group; group x is [start[x], start[x + 1]).
    private final int[] nodeMembers;
    private final int[] nodeMemberStart;
    private final int[] rackMembers;
    private final int[] rackMemberStart;
    private final int[] rackOfNode; // dense rack id of each dense node id
    private final boolean rankRuns;

    private GroupTopology(int[] globalGpu, int[] node, int[] rack, Hardware hardware) {
        int ep = node.length;
        this.globalGpu = globalGpu;
        this.node = node;
        this.rack = rack;
        this.hardware = hardware;
        this.linkClass = new byte[ep * ep];
        for (int a = 0; a < ep; a++) {
            for (int b = 0; b < ep; b++) {
                LinkClass c = a == b ? LinkClass.SAME_GPU
                        : node[a] == node[b] ? LinkClass.NVLINK
                        : rack[a] == rack[b] ? LinkClass.NETWORK : LinkClass.CROSS_RACK;
                linkClass[a * ep + b] = (byte) c.ordinal();
            }
        }
        this.nodeIndex = new int[ep];
        int n = 0;
        for (int a = 0; a < ep; a++) {
            int found = -1;
            for (int b = 0; b < a; b++) {
                if (node[b] == node[a]) {
                    found = nodeIndex[b];
                    break;
                }
            }
            nodeIndex[a] = found >= 0 ? found : n++;
        }
        this.nodeCount = n;
        this.rackIndex = new int[ep];
        int r = 0;
        for (int a = 0; a < ep; a++) {
            int found = -1;
            for (int b = 0; b < a; b++) {
                if (rack[b] == rack[a]) {
                    found = rackIndex[b];
                    break;
                }
            }
            rackIndex[a] = found >= 0 ? found : r++;
        }
        this.rackCount = r;
        this.nodeMemberStart = new int[n + 1];
        this.nodeMembers = groupMembers(nodeIndex, n, nodeMemberStart);
        this.rackMemberStart = new int[r + 1];
        this.rackMembers = groupMembers(rackIndex, r, rackMemberStart);
        this.rackOfNode = new int[n];
        for (int a = 0; a < ep; a++) {
            rackOfNode[nodeIndex[a]] = rackIndex[a];
        }
        // Groups are numbered by first appearance, so every group is a run of ranks iff listing them in order lists
        // the ranks in order.
        boolean runs = true;
        for (int a = 0; a < ep; a++) {
            runs &= nodeMembers[a] == a && rackMembers[a] == a;
        }
        this.rankRuns = runs;
    }

    /** The ranks of each group in ascending order, groups one after another; fills {@code start}. */
    private static int[] groupMembers(int[] groupOf, int groups, int[] start) {
        for (int g : groupOf) {
            start[g + 1]++;
        }
        for (int x = 0; x < groups; x++) {
            start[x + 1] += start[x];
        }
        int[] fill = java.util.Arrays.copyOf(start, groups);
        int[] members = new int[groupOf.length];
        for (int a = 0; a < groupOf.length; a++) {
            members[fill[groupOf[a]]++] = a;
        }
        return members;
    }

    /** Node {@code n}'s EP ranks are {@code nodeMember(i)} for i in [nodeMemberStart(n), nodeMemberStart(n + 1)), ascending. */
    public int nodeMemberStart(int n) {
        return nodeMemberStart[n];
    }

    public int nodeMember(int i) {
        return nodeMembers[i];
    }

    /** Rack {@code r}'s EP ranks are {@code rackMember(i)} for i in [rackMemberStart(r), rackMemberStart(r + 1)), ascending. */
    public int rackMemberStart(int r) {
        return rackMemberStart[r];
    }

    public int rackMember(int i) {
        return rackMembers[i];
    }

    /** Dense rack number of an EP rank, in [0, rackCount()). */
    public int rackIndex(int local) {
        return rackIndex[local];
    }

    public int rackCount() {
        return rackCount;
    }

    /** Dense rack number of dense node {@code n}. */
    public int rackOfNode(int n) {
        return rackOfNode[n];
    }

    /** Whether every node and every rack is a run of consecutive EP ranks. */
    public boolean groupsAreRankRuns() {
        return rankRuns;
    }

    /** The EP group of (stage, copy) in a world. */
    public static GroupTopology of(Topology t, Parallelism par, int stage, int copy) {
        int ep = par.ep();
        int[] gg = new int[ep];
        int[] nd = new int[ep];
        int[] rk = new int[ep];
        for (int i = 0; i < ep; i++) {
            gg[i] = par.gpu(stage, copy, i);
            nd[i] = t.node(gg[i]);
            rk[i] = t.rack(gg[i]);
        }
        return new GroupTopology(gg, nd, rk, t.hardware());
    }

    /** A group given directly by each EP rank's node and rack (used by test vectors). */
    public static GroupTopology ofPlaces(int[] node, int[] rack, Hardware hw) {
        if (node.length != rack.length || node.length == 0) {
            throw new IllegalArgumentException("node and rack arrays must be non-empty and of equal length");
        }
        int[] gg = new int[node.length];
        for (int i = 0; i < gg.length; i++) {
            gg[i] = i;
        }
        return new GroupTopology(gg, node.clone(), rack.clone(), hw);
    }

    public int ep() {
        return node.length;
    }

    public int globalGpu(int local) {
        return globalGpu[local];
    }

    public int node(int local) {
        return node[local];
    }

    public int rack(int local) {
        return rack[local];
    }

    /** Dense node number of an EP rank, in [0, nodeCount()). */
    public int nodeIndex(int local) {
        return nodeIndex[local];
    }

    public int nodeCount() {
        return nodeCount;
    }

    public int linkClass(int a, int b) {
        return linkClass[a * node.length + b];
    }

    /** {@link #linkClass(int, int)} by flat index {@code a * ep + b} (hot loops that walk a row). */
    public int linkClassAt(int flat) {
        return linkClass[flat];
    }

    public Hardware hardware() {
        return hardware;
    }
}
