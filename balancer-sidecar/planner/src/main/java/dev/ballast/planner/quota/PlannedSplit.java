package dev.ballast.planner.quota;

import dev.ballast.planner.model.LayerPlacement;

/**
 * The planned split (docs/quota-rule.md, "Planned split"): a placement that carries route weights
 * ({@link LayerPlacement#withRoutes}) sends each source's tokens for an expert to the expert's copies in proportion to
 * the weights, whole tokens by largest remainder. Integer arithmetic only; the Python client does the same steps.
 * {@link QuotaRule#apply} calls it for such placements.
 */
final class PlannedSplit {
    private PlannedSplit() {
    }

    /**
     * Source s's count c for a multi-copy expert e with weights w over its copies (sum W): copy j takes
     * floor(c w_j / W), and the c − Σ floor(...) tokens left go one each to the copies with the largest c w_j mod W,
     * ties to the lower copy.
     */
    static QuotaResult apply(LayerPlacement p, long[] counts) {
        long[] rest = new long[p.totalCopies()];
        return FixedSplit.apply(p, counts, true, (s, e, c, shares) -> {
            int first = p.copyStart(e);
            int k = p.copies(e);
            long sum = 0;
            for (int j = 0; j < k; j++) {
                sum += p.routeWeight(s, first + j);
            }
            long left = c;
            for (int j = 0; j < k; j++) {
                long x = c * p.routeWeight(s, first + j);
                shares[j] = x / sum;
                rest[j] = x % sum;
                left -= shares[j];
            }
            for (; left > 0; left--) {
                int best = -1;
                for (int j = 0; j < k; j++) {
                    if (rest[j] >= 0 && (best < 0 || rest[j] > rest[best])) {
                        best = j;
                    }
                }
                shares[best]++;
                rest[best] = -1;
            }
        });
    }
}
