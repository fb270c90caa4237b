package dev.ballast.planner.quota;

import dev.ballast.planner.model.LayerPlacement;

/**
 * The planned split (docs/quota-rule.md, "Planned split"): a placement that carries route weights
 * ({@link LayerPlacement#withRoutes}) sends each source's tokens for an expert to the expert's copies in proportion to
 * the weights, whole tokens by largest remainder. Integer arithmetic only; the Python client does the same steps.
 * {@link QuotaRule#apply} calls it for such placements.
 */
public final class PlannedSplit {
    private PlannedSplit() {
    }

    /**
     * Source s's count c for a multi-copy expert e with weights w over its copies (sum W): copy j takes
     * floor(c w_j / W), and the c − Σ floor(...) tokens left go one each to the copies with the largest c w_j mod W,
     * ties to the lower copy.
     */
    static QuotaResult apply(LayerPlacement p, long[] counts) {
        int ep = p.gpus();
        int experts = p.experts();
        int copies = p.totalCopies();
        int capacity = 0;
        for (int e = 0; e < experts; e++) {
            if (p.copies(e) > 1) {
                capacity += ep * p.copies(e);
            }
        }
        int[] start = new int[experts + 1];
        int[] fs = new int[capacity];
        int[] fc = new int[capacity];
        long[] ft = new long[capacity];
        long[] quota = new long[copies];
        long[] load = new long[ep];
        long[] share = new long[copies];
        long[] rest = new long[copies];
        int n = 0;
        for (int e = 0; e < experts; e++) {
            start[e] = n;
            int first = p.copyStart(e);
            int k = p.copies(e);
            for (int s = 0; s < ep; s++) {
                long c = counts[s * experts + e];
                if (c == 0) {
                    continue;
                }
                if (k == 1) {
                    quota[first] += c;
                    load[p.copyGpu(first)] += c;
                    continue;
                }
                long sum = 0;
                for (int j = first; j < first + k; j++) {
                    sum += p.routeWeight(s, j);
                }
                long left = c;
                for (int j = first; j < first + k; j++) {
                    long x = c * p.routeWeight(s, j);
                    share[j] = x / sum;
                    rest[j] = x % sum;
                    left -= share[j];
                }
                for (; left > 0; left--) {
                    int best = -1;
                    for (int j = first; j < first + k; j++) {
                        if (rest[j] >= 0 && (best < 0 || rest[j] > rest[best])) {
                            best = j;
                        }
                    }
                    share[best]++;
                    rest[best] = -1;
                }
                for (int j = first; j < first + k; j++) {
                    if (share[j] == 0) {
                        continue;
                    }
                    fs[n] = s;
                    fc[n] = j;
                    ft[n++] = share[j];
                    quota[j] += share[j];
                    load[p.copyGpu(j)] += share[j];
                }
            }
        }
        start[experts] = n;
        long max = 0;
        for (long l : load) {
            max = Math.max(max, l);
        }
        return new QuotaResult(p, counts, max, false, load, quota, start, fs, fc, ft, true);
    }
}
