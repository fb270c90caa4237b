package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;

import java.util.Arrays;

/**
 * FSSDP only: drops materialized copies that cost more than they serve. Under FSSDP no GPU owns an expert (every GPU
 * holds a shard of all of them), so a copy, the one on the expert's home GPU included, is just a gather and a
 * reduce-scatter each step ({@code (EP − 1) / EP} of the expert's weights and gradient over the GPU's links) and a
 * working copy's memory. A copy of an expert that has another one and whose GPU's node sends it few tokens can cost more
 * than it saves; dropping it frees its slot and its parameter traffic. Every expert keeps at least one copy.
 * <p>
 * A drop pays through either term: gathers saved where they are exposed, and the quota rule's routing, which sends
 * part of an expert's tokens to every copy with room (a home copy far from the expert's users draws network tokens
 * that a drop keeps on the users' node; on the bench rows that is most of the gain, so drops are tried whether or not
 * gathers are exposed). Greedy and exact: copies of experts with two or more copies are tried one at a time, fewest
 * node-local tokens first (then expert, then GPU), and a drop is kept only when the scorer (quota rule and cost model,
 * exactly what the bench scores) predicts the layer strictly faster and the quota rule's balance stays within
 * {@link CandidateSelector#BALANCE_CAP} or no worse. So the result is never predicted slower than its input. Each try
 * is one quota rule and cost model: in fssdp mode the plan takes several times longer (docs/planner.md, step 5).
 */
public final class MaterializationDrops {
    private MaterializationDrops() {
    }

    /** {@code p} with the paying drops applied; {@code p} itself outside fssdp mode or when none pays. */
    public static LayerPlacement apply(LayerScorer scorer, LayerPlacement p) {
        if (scorer.context().mode() != Mode.FSSDP) {
            return p;
        }
        GroupTopology gt = scorer.group();
        LayerDemand demand = scorer.demand();
        int experts = p.experts();
        // Candidates packed as (node-local tokens, expert, GPU) so one sort gives the deterministic order.
        long[] keys = new long[p.totalCopies()];
        int n = 0;
        for (int e = 0; e < experts; e++) {
            if (p.copies(e) < 2) {
                continue;
            }
            for (int c = p.copyStart(e); c < p.copyStart(e) + p.copies(e); c++) {
                int g = p.copyGpu(c);
                long local = Math.min(demand.nodeTokens(gt.nodeIndex(g), e), (1L << 32) - 1);
                keys[n++] = (local << 31) | ((long) e << 15) | g;
            }
        }
        if (n == 0 || experts >= (1 << 16) || gt.ep() >= (1 << 15)) {
            return p;
        }
        Arrays.sort(keys, 0, n);
        LayerPlacement best = p;
        double bestSec = scorer.seconds(p, null);
        long bestMax = scorer.maxLoad(p);
        for (int i = 0; i < n; i++) {
            int e = (int) ((keys[i] >>> 15) & 0xFFFF);
            int g = (int) (keys[i] & 0x7FFF);
            if (best.copies(e) < 2) {
                continue;
            }
            LayerPlacement q = without(best, g, e);
            long max = scorer.maxLoad(q);
            if (max > bestMax && scorer.imbalance(max) > CandidateSelector.BALANCE_CAP) {
                continue;
            }
            double sec = scorer.seconds(q, null);
            if (sec < bestSec) {
                best = q;
                bestSec = sec;
                bestMax = max;
            }
        }
        return best;
    }

    /** {@code p} without expert {@code e}'s copy on GPU {@code g}. */
    static LayerPlacement without(LayerPlacement p, int g, int e) {
        int[][] lists = new int[p.gpus()][];
        for (int x = 0; x < lists.length; x++) {
            lists[x] = x == g ? SlotChanges.replace(p.expertsOn(x), e, -1) : p.expertsOn(x);
        }
        return LayerPlacement.ofAscending(p.experts(), lists);
    }
}
