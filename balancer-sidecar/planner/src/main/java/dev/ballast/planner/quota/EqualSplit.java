package dev.ballast.planner.quota;

import dev.ballast.planner.model.LayerPlacement;

/**
 * EPLB-style routing: each source splits its tokens for an expert equally among the expert's physical replicas,
 * the remainder going one token each to replicas starting at index (source mod replicas); a copy standing for several
 * replicas on one GPU ({@link LayerPlacement#replicas}) computes the shares of all of them, as EPLB's runtime does.
 */
public final class EqualSplit {
    private EqualSplit() {
    }

    public static QuotaResult apply(LayerPlacement p, long[] counts) {
        return FixedSplit.apply(p, counts, false, (s, e, c, shares) -> {
            int first = p.copyStart(e);
            int phys = p.physicalReplicas(e);
            long share = c / phys;
            long rem = c % phys;
            int replica = 0;
            for (int j = 0; j < p.copies(e); j++) {
                long x = 0;
                for (int r = p.replicas(first + j); r > 0; r--, replica++) {
                    x += share + (Math.floorMod(replica - s, phys) < rem ? 1 : 0);
                }
                shares[j] = x;
            }
        });
    }
}
