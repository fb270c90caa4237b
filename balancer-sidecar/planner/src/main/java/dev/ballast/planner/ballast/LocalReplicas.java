package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;

/**
 * Topology-aware replicas: for (expert, node) pairs whose node has no copy, ranked by the tokens that would otherwise
 * cross the network (weighted by how much slower the cross-rack link is when no copy is in the node's rack), a replica
 * on the node's least-loaded GPU with a free slot, which takes the node's tokens from the expert's busiest copy.
 */
public final class LocalReplicas {
    private LocalReplicas() {
    }

    /**
     * Opens up to {@code limit} local replicas in {@code st}, best pair first, skipping pairs whose tokens are not worth
     * more than {@code minSavedBytes} and replicas {@code budget} refuses (null: no budget). A pair is re-valued when a
     * copy lands in its rack meanwhile (lazy priority queue). {@code record} (may be null) receives the picks.
     * Returns how many were opened.
     */
    public static int place(GroupTopology gt, SheddingState st, LayerDemand demand, int limit, double tokenBytes,
                            double minSavedBytes, LocalPicks record, ParameterBudget budget) {
        int experts = st.experts();
        int nc = gt.nodeCount();
        long[] nodeDemand = demand.nodeDemand();
        if (nc > 255 || experts > (1 << 14)) {
            return 0; // outside the packed sort key's range: balance only
        }
        // Candidates by weighted demand descending, then expert, then node (demand < 2^38; checked).
        // Tokens that would cross racks count extra, by how much slower the cross-rack link is than the NIC.
        double crossRackWeight = Math.max(1, gt.hardware().nicGBps() / gt.hardware().crossRackGBps());
        // Pairs whose node already has a copy are left out, and each is valued with the copies already placed: values
        // only fall as copies are added, so the lazy re-queue below still pops the best current pair.
        LongMaxHeap queue = st.pairQueue();
        // Loads are at most the layer's tokens: below 2^48 they pack with a GPU index (at most 32768 GPUs) into a key.
        boolean packable = demand.allTokens() < (1L << 48) && gt.ep() <= (1 << 15);
        // nodeCoveredBy[x] == e + 1: node x holds a copy of expert e (likewise racks); no clearing between experts.
        int[] nodeCoveredBy = new int[nc];
        int[] rackCoveredBy = new int[gt.rackCount()];
        // The experts some node's share of which may be worth a replica (each share is at most the total), listed by a
        // conditional count, not a branch the predictor cannot guess.
        int[] worth = st.expertScratch();
        int worthy = 0;
        for (int e = 0; e < experts; e++) {
            worth[worthy] = e;
            worthy += demand.total(e) * tokenBytes > minSavedBytes ? 1 : 0;
        }
        for (int i = 0; i < worthy; i++) {
            int e = worth[i];
            for (int c = 0; c < st.copyCount(e); c++) {
                int g = st.copyGpu(e, c);
                nodeCoveredBy[gt.nodeIndex(g)] = e + 1;
                rackCoveredBy[gt.rackIndex(g)] = e + 1;
            }
            for (int x = 0; x < nc; x++) {
                long d = nodeDemand[x * experts + e];
                if (nodeCoveredBy[x] != e + 1 && d * tokenBytes > minSavedBytes && d < (1L << 38)) {
                    queue.add(key(rackCoveredBy[gt.rackOfNode(x)] == e + 1 ? d : (long) (d * crossRackWeight), e, x));
                }
            }
        }
        queue.heapify();
        int placed = 0;
        while (!queue.isEmpty() && placed < limit) {
            long k = queue.pop();
            int e = (1 << 14) - 1 - (int) ((k >>> 8) & ((1 << 14) - 1));
            int x = 255 - (int) (k & 255);
            long d = nodeDemand[x * experts + e];
            boolean coveredNode = false;
            boolean coveredRack = false;
            for (int c = 0; c < st.copyCount(e); c++) {
                int g = st.copyGpu(e, c);
                coveredNode |= gt.nodeIndex(g) == x;
                coveredRack |= gt.rackIndex(g) == gt.rackOfNode(x);
            }
            if (coveredNode) {
                continue;
            }
            // A copy placed meanwhile in this rack makes the pair worth less: re-queue it at its current value.
            long now = key(coveredRack ? d : (long) (d * crossRackWeight), e, x);
            if (now < k) {
                queue.push(now);
                continue;
            }
            int best = -1;
            if (packable) {
                // The node's GPU with a free slot and the least load, the earliest on ties (members ascend), as the
                // largest key (2^48 - 1 - load) << 15 | 32767 - GPU: a branch-free max instead of comparisons the
                // branch predictor cannot guess.
                long most = -1;
                for (int i = gt.nodeMemberStart(x); i < gt.nodeMemberStart(x + 1); i++) {
                    int g = gt.nodeMember(i);
                    long key = ((1L << 48) - 1 - st.load(g)) << 15 | (32767 - g);
                    most = Math.max(most, st.hasFreeSlot(g) ? key : -1);
                }
                best = most < 0 ? -1 : 32767 - (int) (most & 32767);
            } else {
                for (int i = gt.nodeMemberStart(x); i < gt.nodeMemberStart(x + 1); i++) {
                    int g = gt.nodeMember(i);
                    if (st.hasFreeSlot(g) && (best < 0 || st.load(g) < st.load(best))) {
                        best = g;
                    }
                }
            }
            if (best < 0 || budget != null && !budget.tryAdd(st.home(e), best)) {
                continue;
            }
            // The new copy takes this node's tokens from the expert's most loaded copy.
            st.addReplica(e, best);
            st.shift(e, best, d);
            placed++;
            if (record != null) {
                record.add(e, best, d);
            }
        }
        if (record != null) {
            record.done();
        }
        return placed;
    }

    /** Packs (value, expert, node) so that larger values, then lower experts, then lower nodes sort higher. */
    private static long key(long value, int e, int node) {
        return (value << 22) | ((long) ((1 << 14) - 1 - e) << 8) | (255 - Math.min(255, node));
    }
}
