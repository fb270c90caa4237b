package dev.ballast.planner.quota;

import dev.ballast.planner.Fixtures;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.LayerPlacement;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QuotaRuleTest {

    /** Flows as (expert, source, copy, tokens) rows, for comparisons. */
    static List<long[]> flows(QuotaResult r) {
        List<long[]> out = new ArrayList<>();
        r.forEachFlow((e, s, c, t) -> out.add(new long[] {e, s, c, t}));
        return out;
    }

    static void assertConsistent(GroupTopology gt, LayerPlacement p, long[] counts, long[] cap, QuotaResult r) {
        int ep = gt.ep();
        int experts = p.experts();
        long[] perSourceExpert = new long[ep * experts];
        long[] perCopy = new long[p.totalCopies()];
        long[] perGpu = new long[ep];
        r.forEachFlow((e, s, c, t) -> {
            assertThat(t).isPositive();
            assertThat(c).isBetween(p.copyStart(e), p.copyStart(e) + p.copies(e) - 1);
            perSourceExpert[s * experts + e] += t;
            perCopy[c] += t;
            perGpu[p.copyGpu(c)] += t;
        });
        // Conservation: every source's tokens for every expert are sent, exactly.
        assertThat(perSourceExpert).containsExactly(counts);
        long total = 0;
        for (int c = 0; c < p.totalCopies(); c++) {
            assertThat(perCopy[c]).isEqualTo(r.copyQuota(c));
            assertThat(r.copyQuota(c)).isNotNegative();
        }
        for (int g = 0; g < ep; g++) {
            assertThat(perGpu[g]).isEqualTo(r.gpuLoad(g));
            assertThat(r.gpuLoad(g)).isLessThanOrEqualTo(r.threshold());
            if (cap != null && !r.capacityExceeded()) {
                assertThat(r.gpuLoad(g)).isLessThanOrEqualTo(cap[g]);
            }
            total += r.gpuLoad(g);
        }
        assertThat(r.threshold()).isGreaterThanOrEqualTo((total + ep - 1) / ep);
    }

    @Test
    void conservesTokensRespectsThresholdAndIsDeterministic() {
        SplittableRandom rnd = new SplittableRandom(42);
        for (int trial = 0; trial < 300; trial++) {
            int perNode = 1 + rnd.nextInt(4);
            int ep = perNode * (1 + rnd.nextInt(4));
            int experts = ep + rnd.nextInt(3 * ep + 1);
            GroupTopology gt = Fixtures.group(ep, perNode, 1 + rnd.nextInt(2));
            LayerPlacement p = Fixtures.randomPlacement(rnd, ep, experts, 3);
            long[] counts = Fixtures.counts(rnd, ep, experts, 1 + rnd.nextInt(5000));
            QuotaResult a = QuotaRule.apply(gt, p, counts, null);
            assertConsistent(gt, p, counts, null, a);
            QuotaResult b = QuotaRule.apply(gt, p, counts.clone(), null);
            assertThat(flows(b)).usingRecursiveComparison().isEqualTo(flows(a));
            assertThat(b.threshold()).isEqualTo(a.threshold());
            // The rule reuses its buffers from call to call; a result it returned never shares them.
            QuotaRule.apply(gt, Fixtures.randomPlacement(rnd, ep, experts, 3), Fixtures.counts(rnd, ep, experts, 5000), null);
            assertThat(flows(a)).usingRecursiveComparison().isEqualTo(flows(b));
            assertConsistent(gt, p, counts, null, a);
        }
    }

    /**
     * Step 10 as docs/quota-rule.md words it, from the result's quotas: the implementation visits only the groups with
     * room where nodes and racks are runs of consecutive ranks, and must emit the same flows in the same order.
     */
    @Test
    void flowsAreStepTenAsWrittenWhetherOrNotNodesAreRunsOfRanks() {
        SplittableRandom rnd = new SplittableRandom(11);
        for (int trial = 0; trial < 400; trial++) {
            int ep = 4 + rnd.nextInt(9);
            int experts = ep + rnd.nextInt(2 * ep + 1);
            int nodes = 1 + rnd.nextInt(4);
            boolean runs = trial % 2 == 0;
            int[] node = new int[ep];
            int[] rack = new int[ep];
            for (int g = 0; g < ep; g++) {
                node[g] = runs ? g * nodes / ep : rnd.nextInt(nodes);
                rack[g] = runs ? node[g] / 2 : node[g] % 2;
            }
            GroupTopology gt = GroupTopology.ofPlaces(node, rack, Hardware.DEFAULT);
            LayerPlacement p = Fixtures.randomPlacement(rnd, ep, experts, 1 + rnd.nextInt(3));
            long[] counts = Fixtures.counts(rnd, ep, experts, 1 + rnd.nextInt(3000));
            QuotaResult r = QuotaRule.apply(gt, p, counts, null);
            List<long[]> want = new ArrayList<>();
            for (int e = 0; e < experts; e++) {
                int first = p.copyStart(e);
                int k = p.copies(e);
                long[] avail = new long[ep];
                long[] room = new long[k];
                for (int src = 0; src < ep; src++) {
                    avail[src] = counts[src * experts + e];
                    if (k == 1 && avail[src] > 0) {
                        want.add(new long[] {e, src, first, avail[src]}); // one copy: every source, ascending
                    }
                }
                if (k == 1) {
                    continue;
                }
                for (int j = 0; j < k; j++) {
                    room[j] = r.copyQuota(first + j);
                }
                for (int cls = 0; cls < 4; cls++) {
                    for (int src = 0; src < ep; src++) {
                        for (int j = 0; j < k; j++) {
                            if (gt.linkClass(src, p.copyGpu(first + j)) == cls && avail[src] > 0 && room[j] > 0) {
                                long t = Math.min(avail[src], room[j]);
                                want.add(new long[] {e, src, first + j, t});
                                avail[src] -= t;
                                room[j] -= t;
                            }
                        }
                    }
                }
            }
            assertThat(flows(r)).as("trial %d (%s)", trial, runs ? "runs" : "interleaved")
                    .usingRecursiveComparison().isEqualTo(want);
        }
    }

    @Test
    void respectsCapacitiesWhenTheyCanBeMet() {
        SplittableRandom rnd = new SplittableRandom(7);
        int met = 0;
        for (int trial = 0; trial < 200; trial++) {
            int ep = 8;
            int experts = 16;
            GroupTopology gt = Fixtures.group(ep, 4, 1);
            LayerPlacement p = Fixtures.randomPlacement(rnd, ep, experts, 2);
            long[] counts = Fixtures.counts(rnd, ep, experts, 1000);
            long free = QuotaRule.apply(gt, p, counts, null).threshold();
            long[] cap = new long[ep];
            for (int g = 0; g < ep; g++) {
                cap[g] = free + rnd.nextInt(50) - 10;
            }
            QuotaResult r = QuotaRule.apply(gt, p, counts, cap);
            assertConsistent(gt, p, counts, cap, r);
            if (!r.capacityExceeded()) {
                met++;
            }
        }
        assertThat(met).isGreaterThan(50);
    }

    @Test
    void impossibleCapacityIsFlaggedAndTokensStillConserved() {
        GroupTopology gt = Fixtures.group(2, 2, 1);
        LayerPlacement p = LayerPlacement.staticLayout(2, 2);
        long[] counts = {10, 0, 5, 0}; // expert 0 gets 15 tokens and has one copy
        QuotaResult r = QuotaRule.apply(gt, p, counts, new long[] {8, 8});
        assertThat(r.capacityExceeded()).isTrue();
        assertConsistent(gt, p, counts, null, r);
        assertThat(r.gpuLoad(0)).isEqualTo(15);
    }

    @Test
    void handCheckedHotExpertSplitsUnequallyNearestFirst() {
        // 4 GPUs, 2 per node. Expert 0 (home GPU 0) is hot and has a replica on GPU 2 (other node).
        GroupTopology gt = Fixtures.group(4, 2, 1);
        LayerPlacement p = LayerPlacement.of(4, new int[][] {{0}, {1}, {0, 2}, {3}});
        // counts[source][expert]
        long[] counts = {
            30, 5, 5, 5,
            30, 5, 5, 5,
            10, 5, 5, 5,
            10, 5, 5, 5};
        QuotaResult r = QuotaRule.apply(gt, p, counts, null);
        // Expert 0 has 80 tokens; GPU 2 also computes expert 2 (20). Best split: 50 on GPU 0, 30 on GPU 2 -> T = 50.
        assertThat(r.threshold()).isEqualTo(50);
        assertThat(r.gpuLoad(0)).isEqualTo(50);
        assertThat(r.gpuLoad(2)).isEqualTo(50);
        assertThat(r.copyQuota(p.copyStart(0))).isEqualTo(50);
        assertThat(r.copyQuota(p.copyStart(0) + 1)).isEqualTo(30);
        // Nearest first: same GPU (source 2), then NVLink (source 3), then the network (source 1's leftover).
        List<long[]> toReplica = new ArrayList<>();
        r.forEachFlow((e, s, c, t) -> {
            if (p.copyGpu(c) == 2 && e == 0) {
                toReplica.add(new long[] {s, t});
            }
        });
        assertThat(toReplica).containsExactly(new long[] {2, 10}, new long[] {3, 10}, new long[] {1, 10});
    }

    @Test
    void rejectsBadInput() {
        GroupTopology gt = Fixtures.group(2, 2, 1);
        LayerPlacement p = LayerPlacement.staticLayout(2, 2);
        assertThatThrownBy(() -> QuotaRule.apply(gt, p, new long[3], null)).hasMessageContaining("counts length");
        assertThatThrownBy(() -> QuotaRule.apply(gt, p, new long[] {1, -1, 0, 0}, null)).hasMessageContaining("negative count");
        LayerPlacement missing = LayerPlacement.of(2, new int[][] {{0}, {0}});
        assertThatThrownBy(() -> QuotaRule.apply(gt, missing, new long[4], null)).hasMessageContaining("expert 1 has no copy");
    }

    @Test
    void equalSplitConservesAndSplitsEvenly() {
        GroupTopology gt = Fixtures.group(4, 2, 1);
        LayerPlacement p = LayerPlacement.of(4, new int[][] {{0}, {1, 0}, {2}, {3, 0}});
        long[] counts = {31, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        QuotaResult r = EqualSplit.apply(p, counts);
        assertConsistent(gt, p, counts, null, r);
        // 31 tokens over 3 copies: 11, 10, 10 (remainder to the copy at index source mod 3 = 0).
        assertThat(r.copyQuota(p.copyStart(0))).isEqualTo(11);
        assertThat(r.copyQuota(p.copyStart(0) + 1)).isEqualTo(10);
        assertThat(r.copyQuota(p.copyStart(0) + 2)).isEqualTo(10);
    }
}
