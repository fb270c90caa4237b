package dev.ballast.planner.planners;

/**
 * DeepSeek's EPLB algorithm (github.com/deepseek-ai/EPLB, MIT), rewritten from its published description for one
 * layer: replicate experts by load/count (D'Hondt), then balanced packing (heaviest item to the lightest pack that
 * still has room). Hierarchical policy: pack expert groups onto nodes, replicate within each node, pack replicas onto
 * the node's GPUs. Global policy: the same with one group and one node. Ties go to the lowest index.
 */
public final class Eplb {
    private Eplb() {
    }

    /** Physical slot p (slot p % (P/M) of GPU p / (P/M)) → logical expert, for one layer. */
    public static int[] rebalance(double[] weight, int numReplicas, int numGroups, int numNodes, int numGpus) {
        if (numGroups % numNodes == 0) {
            return hierarchical(weight, numReplicas, numGroups, numNodes, numGpus);
        }
        return hierarchical(weight, numReplicas, 1, 1, numGpus);
    }

    public static int[] global(double[] weight, int numReplicas, int numGpus) {
        return hierarchical(weight, numReplicas, 1, 1, numGpus);
    }

    public static int[] hierarchical(double[] weight, int numPhy, int numGroups, int numNodes, int numGpus) {
        int numLog = weight.length;
        require(numLog % numGroups == 0, "experts " + numLog + " not divisible by groups " + numGroups);
        require(numGroups % numNodes == 0, "groups " + numGroups + " not divisible by nodes " + numNodes);
        require(numGpus % numNodes == 0, "GPUs " + numGpus + " not divisible by nodes " + numNodes);
        require(numPhy % numGpus == 0, "physical slots " + numPhy + " not divisible by GPUs " + numGpus);
        require(numPhy >= numLog, "physical slots " + numPhy + " fewer than experts " + numLog);
        int groupSize = numLog / numGroups;
        int groupsPerNode = numGroups / numNodes;
        int phyPerGpu = numPhy / numGpus;
        int logPerNode = numLog / numNodes;
        int phyPerNode = numPhy / numNodes;
        require(phyPerNode >= logPerNode, "too few slots per node");

        // Step 1: expert groups onto nodes.
        double[] groupLoad = new double[numGroups];
        for (int e = 0; e < numLog; e++) {
            groupLoad[e / groupSize] += weight[e];
        }
        int[][] groupPack = balancedPacking(groupLoad, numNodes);
        int[] mlog2log = new int[numLog];
        for (int e = 0; e < numLog; e++) {
            int g = e / groupSize;
            int mlog = (groupPack[0][g] * groupsPerNode + groupPack[1][g]) * groupSize + e % groupSize;
            mlog2log[mlog] = e;
        }
        int[] phy2log = new int[numPhy];
        for (int n = 0; n < numNodes; n++) {
            // Step 2: replicate within the node.
            double[] nodeLoad = new double[logPerNode];
            for (int i = 0; i < logPerNode; i++) {
                nodeLoad[i] = weight[mlog2log[n * logPerNode + i]];
            }
            int[] phy2mlog = new int[phyPerNode];
            int[] count = new int[logPerNode];
            replicate(nodeLoad, phy2mlog, count);
            // Step 3: replicas onto the node's GPUs.
            double[] phyLoad = new double[phyPerNode];
            for (int i = 0; i < phyPerNode; i++) {
                phyLoad[i] = nodeLoad[phy2mlog[i]] / count[phy2mlog[i]];
            }
            int[][] pack = balancedPacking(phyLoad, numGpus / numNodes);
            for (int i = 0; i < phyPerNode; i++) {
                int pphy = pack[0][i] * phyPerGpu + pack[1][i];
                phy2log[n * phyPerNode + pphy] = mlog2log[n * logPerNode + phy2mlog[i]];
            }
        }
        return phy2log;
    }

    /** Each extra slot goes to argmax(load / copies), lowest index on ties. */
    static void replicate(double[] load, int[] phy2log, int[] count) {
        int numLog = load.length;
        for (int i = 0; i < numLog; i++) {
            phy2log[i] = i;
            count[i] = 1;
        }
        for (int i = numLog; i < phy2log.length; i++) {
            int best = 0;
            double bestV = load[0] / count[0];
            for (int e = 1; e < numLog; e++) {
                double v = load[e] / count[e];
                if (v > bestV) {
                    best = e;
                    bestV = v;
                }
            }
            phy2log[i] = best;
            count[best]++;
        }
    }

    /**
     * Items in descending weight (stable: lower index first on ties) each go to the lightest pack that still has
     * room (n/m items per pack), lowest pack index on ties. Returns {packIndex, rankInPack}.
     */
    static int[][] balancedPacking(double[] weight, int numPacks) {
        int n = weight.length;
        require(n % numPacks == 0, n + " items do not pack evenly into " + numPacks);
        int perPack = n / numPacks;
        int[] pack = new int[n];
        int[] rank = new int[n];
        if (perPack == 1) {
            for (int i = 0; i < n; i++) {
                pack[i] = i;
            }
            return new int[][] {pack, rank};
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, (a, b) -> Double.compare(weight[b], weight[a]));
        double[] packWeight = new double[numPacks];
        int[] packItems = new int[numPacks];
        for (int item : order) {
            int best = -1;
            for (int p = 0; p < numPacks; p++) {
                if (packItems[p] < perPack && (best < 0 || packWeight[p] < packWeight[best])) {
                    best = p;
                }
            }
            pack[item] = best;
            rank[item] = packItems[best]++;
            packWeight[best] += weight[item];
        }
        return new int[][] {pack, rank};
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException("EPLB: " + message);
        }
    }
}
