package dev.ballast.trainer.parallel;

import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.quota.QuotaResult;

/**
 * How many rows each source rank sends to each copy of each expert in one layer and step: the quota rule's flows
 * (docs/quota-rule.md) summed per (expert, source, rank of the copy). A source's rows for an expert (slots
 * ascending) go to the copies in ascending rank order, each a contiguous run; a copy stacks what it receives in
 * ascending source order. Every rank computes the same table from the same all-gathered counts.
 */
final class CopyAssignment {

    private final int ranks;
    private final int experts;
    private final int[] rows; // [expert][source][rank]

    private CopyAssignment(int ranks, int experts, int[] rows) {
        this.ranks = ranks;
        this.experts = experts;
        this.rows = rows;
    }

    static CopyAssignment of(LayerPlacement placement, QuotaResult quotas) {
        int ranks = placement.gpus();
        int experts = placement.experts();
        int[] rows = new int[experts * ranks * ranks];
        quotas.forEachFlow((e, s, copy, tokens) ->
                rows[(e * ranks + s) * ranks + placement.copyGpu(copy)] += Math.toIntExact(tokens));
        return new CopyAssignment(ranks, experts, rows);
    }

    int ranks() {
        return ranks;
    }

    int experts() {
        return experts;
    }

    /** Rows of expert e that source s sends to the copy on rank g. */
    int rows(int e, int s, int g) {
        return rows[(e * ranks + s) * ranks + g];
    }

    /** Where source s's run for rank g starts among its rows of expert e. */
    int firstRow(int e, int s, int g) {
        int n = 0;
        for (int h = 0; h < g; h++) {
            n += rows(e, s, h);
        }
        return n;
    }

    /** Rows the copy on rank g computes for expert e, all sources together. */
    int copyRows(int e, int g) {
        int n = 0;
        for (int s = 0; s < ranks; s++) {
            n += rows(e, s, g);
        }
        return n;
    }

    /** Where source s's rows start in the copy on g's stacked batch of expert e. */
    int copyFirstRow(int e, int s, int g) {
        int n = 0;
        for (int u = 0; u < s; u++) {
            n += rows(e, u, g);
        }
        return n;
    }

    /** Rows source s sends to rank g over all experts (one message: expert by expert, ascending). */
    int messageRows(int s, int g) {
        int n = 0;
        for (int e = 0; e < experts; e++) {
            n += rows(e, s, g);
        }
        return n;
    }

    /** Where expert e's rows start in the message from s to g. */
    int messageFirstRow(int e, int s, int g) {
        int n = 0;
        for (int f = 0; f < e; f++) {
            n += rows(f, s, g);
        }
        return n;
    }
}
