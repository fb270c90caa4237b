package dev.ballast.planner.cost;

import dev.ballast.planner.Fixtures;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.LinkTokens;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.StaticLayout;
import dev.ballast.planner.quota.EqualSplit;
import dev.ballast.planner.quota.PlacementSearch;
import dev.ballast.planner.quota.QuotaResult;
import dev.ballast.planner.quota.QuotaRule;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class CostModelTest {
    static final MoeShape SHAPE = MoeShape.generic("t", 1, 4, 1);

    @Test
    void uniformRoutingOnTheStaticLayoutIsTheIdeal() {
        GroupTopology gt = Fixtures.group(4, 2, 2); // two nodes in one rack
        LayerPlacement p = LayerPlacement.staticLayout(4, 4);
        long[] counts = new long[16];
        java.util.Arrays.fill(counts, 1000);
        CostModel m = new CostModel(SHAPE, Mode.REPLICATE);
        QuotaResult r = QuotaRule.apply(gt, p, counts, null);
        LayerCost planned = m.layer(gt, p, r, null);
        LayerCost ideal = m.ideal(gt, counts);
        // The ideal runs no quota rule (it is a forced routing); the planned layer pays the rule's work on top.
        assertThat(planned.totalSec() - planned.quotaRuleSec()).isCloseTo(ideal.totalSec(), within(1e-12));
        assertThat(planned.quotaRuleSec()).isEqualTo(CostModel.quotaRuleSeconds(4, 4, 4));
        assertThat(planned.imbalance()).isEqualTo(1.0);
        // 4000 tokens per GPU x 3 x 2 x 3 x 2048 x 1024 FLOP at 989e12 x 0.6 FLOP/s.
        assertThat(planned.computeSec()).isCloseTo(4000 * 3 * 2.0 * 3 * 2048 * 1024 / (989e12 * 0.6), within(1e-12));
        // Each all-to-all: a GPU sends 1000 tokens to its node peer over NVLink and 2000 over the NIC.
        double nic = 2000 * 4096 / 50e9;
        assertThat(planned.allToAllSec()).isCloseTo(4 * nic, within(1e-12));
        assertThat(planned.interNodeTokenBytes()).isCloseTo(4 * 4 * 2000 * 4096.0, within(1e-3));
    }

    @Test
    void replicasCostRefreshAndGradientReturnAndNewCopiesCostOnce() {
        GroupTopology gt = Fixtures.group(4, 2, 1);
        LayerPlacement p = LayerPlacement.of(4, new int[][] {{0}, {1}, {2, 0}, {3}});
        long[] counts = new long[16];
        counts[0] = 100;
        CostModel m = new CostModel(SHAPE, Mode.REPLICATE);
        QuotaResult r = QuotaRule.apply(gt, p, counts, null);
        double w = SHAPE.weightBytesPerExpert();
        LayerCost steady = m.layer(gt, p, r, null);
        assertThat(steady.paramBytes()).isEqualTo(w + SHAPE.gradBytesPerExpert());
        assertThat(steady.interNodeParamBytes()).isEqualTo(steady.paramBytes());
        LayerCost adopted = m.layer(gt, p, r, LayerPlacement.staticLayout(4, 4));
        assertThat(adopted.migrationBytes()).isEqualTo(w);
        assertThat(adopted.paramSec()).isGreaterThan(steady.paramSec());
        // Overlap rule: only what exceeds the layer's compute is exposed.
        assertThat(steady.exposedParamSec()).isEqualTo(Math.max(0, steady.paramSec() - steady.computeSec()));
    }

    @Test
    void aMovedMasterServesItsReplicasAndPaysItsMigrationOnceOverTheInterval() {
        GroupTopology gt = Fixtures.group(4, 2, 1);
        // Expert e's home is GPU e. Expert 0's only copies are on GPUs 1 and 2; its master moves from GPU 0 to GPU 1
        // (same node). GPU 0 holds a replica of expert 1.
        LayerPlacement p = LayerPlacement.ofPhysicalSlots(4, new int[][] {{1}, {0, 1}, {2, 0}, {3}})
                .withMasters(new int[] {1, 1, 2, 3});
        long[] counts = new long[16];
        counts[0] = 100;
        CostModel m = new CostModel(SHAPE, Mode.REPLICATE, 10);
        LayerCost c = m.layer(gt, p, QuotaRule.apply(gt, p, counts, null), null, null);
        double migration = SHAPE.paramsPerExpert() * (2 + 12) / 10.0;
        // Two replicas (expert 0 on GPU 2, expert 1 on GPU 0) refreshed from and returning to their masters on GPU 1,
        // plus a tenth of expert 0's migration.
        assertThat(c.paramBytes()).isCloseTo(2 * (SHAPE.weightBytesPerExpert() + SHAPE.gradBytesPerExpert()) + migration,
                within(1e-6));
        assertThat(c.migrationBytes()).isCloseTo(migration, within(1e-6));
        // A plan adopted after one that already moved the master pays no migration again.
        LayerCost settled = m.layer(gt, p, QuotaRule.apply(gt, p, counts, null), null, p);
        assertThat(settled.migrationBytes()).isZero();
        // Memory: GPU 1 holds two masters (0 and 1); GPU 0 none, and one working copy.
        assertThat(p.mastersOn(1)).isEqualTo(2);
        assertThat(p.mastersOn(0)).isZero();
        assertThat(p.workingReplicas(0)).isEqualTo(1);
    }

    @Test
    void theLowerBoundIsNeverAboveAnyPlacementsCostUnderEitherRouting() {
        java.util.SplittableRandom r = new java.util.SplittableRandom(17);
        int checked = 0;
        for (int t = 0; t < 300; t++) {
            int ep = 2 + r.nextInt(15);
            int experts = ep * (1 + r.nextInt(4)) + r.nextInt(ep);
            int redundant = r.nextInt(3);
            int slots = StaticLayout.maxHomeCount(ep, experts) + redundant;
            GroupTopology gt = Fixtures.group(ep, 1 + r.nextInt(4), 1 + r.nextInt(2));
            MoeShape shape = r.nextBoolean() ? MoeShape.generic("t", 1, experts, 1)
                    : MoeShape.forModel("mixtral", 1, experts, 2);
            long[] counts = Fixtures.counts(r, ep, experts, r.nextInt(1, 20000));
            LayerPlacement p = Fixtures.randomPlacement(r, ep, experts, redundant);
            boolean[] nodeShards = new boolean[experts];
            for (int e = 0; e < experts; e++) {
                nodeShards[e] = r.nextBoolean();
            }
            for (Mode mode : Mode.values()) {
                CostModel m = new CostModel(shape, mode);
                double bound = m.lowerBound(gt, counts, slots);
                assertThat(bound).isNotNegative();
                // fssdp: the bound holds whichever experts are sharded over their home node.
                LayerPlacement q = mode == Mode.FSSDP ? p.withNodeShards(nodeShards) : p;
                for (QuotaResult routed : java.util.List.of(QuotaRule.apply(gt, q, counts, null),
                        dev.ballast.planner.quota.EqualSplit.apply(q, counts))) {
                    assertThat(bound).isLessThanOrEqualTo(m.layer(gt, q, routed, null).totalSec());
                    checked++;
                }
            }
        }
        assertThat(checked).isEqualTo(300 * 2 * Mode.values().length);
    }

    @Test
    void theLowerBoundIsTheForceBalancedTimeWhenTheLoadIsAlreadyUniformAndLocalityIsImpossible() {
        // One GPU per node, every expert equally loaded from every source: nothing can stay local beyond a GPU's slots,
        // and the static layout is balanced, so the bound meets the static layout's cost up to the slots' locality.
        GroupTopology gt = Fixtures.group(4, 1, 4);
        long[] counts = new long[16];
        java.util.Arrays.fill(counts, 1000);
        CostModel m = new CostModel(SHAPE, Mode.REPLICATE);
        LayerPlacement p = LayerPlacement.staticLayout(4, 4);
        // The bound holds for every routing, the equal split's too, so it leaves out the quota rule's work.
        LayerCost c = m.layer(gt, p, QuotaRule.apply(gt, p, counts, null), null);
        double cost = c.totalSec();
        assertThat(m.lowerBound(gt, counts, 1)).isCloseTo(cost - c.quotaRuleSec(), within(cost * 1e-9));
        assertThat(m.lowerBound(gt, counts, 3)).isLessThan(cost);
    }

    @Test
    void fssdpGathersEveryMaterializedExpert() {
        GroupTopology gt = Fixtures.group(4, 4, 1);
        LayerPlacement p = LayerPlacement.staticLayout(4, 4);
        CostModel m = new CostModel(SHAPE, Mode.FSSDP);
        long[] counts = new long[16];
        LayerCost c = m.layer(gt, p, QuotaRule.apply(gt, p, counts, null), null);
        // Each of 4 GPUs gathers 3/4 of one expert and reduce-scatters 3/4 of its gradient.
        double perGpu = 0.75 * (SHAPE.weightBytesPerExpert() + SHAPE.gradBytesPerExpert());
        assertThat(c.paramBytes()).isCloseTo(4 * perGpu, within(1.0));
        assertThat(c.interNodeParamBytes()).isZero();
    }

    @Test
    void aNodeShardedExpertGathersOverItsHomeNodeAndMovesItsStateOnceWhenAdopted() {
        // 4 GPUs, 2 per node, 4 experts (expert e at home on GPU e); expert 0 has copies on GPUs 0 and 1 (node 0).
        GroupTopology gt = Fixtures.group(4, 2, 1);
        LayerPlacement even = LayerPlacement.of(4, new int[][] {{0}, {0, 1}, {2}, {3}});
        LayerPlacement sharded = even.withNodeShards(new boolean[] {true, false, false, false});
        CostModel m = new CostModel(SHAPE, Mode.FSSDP);
        long[] counts = new long[16];
        LayerCost e = m.layer(gt, even, QuotaRule.apply(gt, even, counts, null), null);
        LayerCost n = m.layer(gt, sharded, QuotaRule.apply(gt, sharded, counts, null), null);
        double copy = SHAPE.weightBytesPerExpert() + SHAPE.gradBytesPerExpert();
        // Even: each of 5 copies gathers the 2 remote quarters over the network. Node shards: expert 0's 2 copies
        // gather the other half of it from their node peer, over NVLink only.
        assertThat(e.interNodeParamBytes()).isCloseTo(5 * 0.5 * copy, within(1.0));
        assertThat(n.interNodeParamBytes()).isCloseTo(3 * 0.5 * copy, within(1.0));
        assertThat(n.paramBytes()).isCloseTo(3 * 0.75 * copy + 2 * 0.5 * copy, within(1.0));
        // State: node 0's GPUs own half of expert 0 each plus a quarter of the other 3; node 1's a quarter of 3.
        assertThat(CostModel.ownedExperts(gt, sharded, 0)).isCloseTo(0.5 + 0.75, within(1e-12));
        assertThat(CostModel.ownedExperts(gt, sharded, 3)).isCloseTo(0.75, within(1e-12));
        assertThat(CostModel.ownedExperts(gt, even, 3)).isCloseTo(1.0, within(1e-12));
        // Adopted after the even layout: GPU 0 keeps its quarter [0, 1/4) and fetches [1/4, 1/2) from GPU 1, which
        // fetches its new half [1/2, 1) from GPUs 2 and 3: three quarters of the expert's state move, half of it
        // between nodes.
        LayerCost adopted = m.layer(gt, sharded, QuotaRule.apply(gt, sharded, counts, null), even);
        double state = m.masterMigrationBytes();
        assertThat(adopted.migrationBytes()).isCloseTo(0.75 * state, within(1.0));
        assertThat(adopted.paramBytes()).isCloseTo(n.paramBytes() + 0.75 * state, within(1.0));
        assertThat(adopted.interNodeParamBytes()).isCloseTo(n.interNodeParamBytes() + 0.5 * state, within(1.0));
        assertThat(m.layer(gt, sharded, QuotaRule.apply(gt, sharded, counts, null), sharded).migrationBytes()).isZero();
    }

    @Test
    void homeSumsAreEveryExpertRoutedToItsHome() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(8);
        for (int trial = 0; trial < 200; trial++) {
            int ep = 4 + 4 * rnd.nextInt(3);
            int experts = ep + rnd.nextInt(3 * ep);
            // Both ways of summing what a source sends: contiguous nodes and racks, and ranks dealt over nodes.
            GroupTopology gt = randomGroup(rnd, ep, trial % 2 == 1);
            long[] counts = Fixtures.counts(rnd, ep, experts, 1 + rnd.nextInt(2000));
            long[] send = new long[ep * 4];
            long[] recv = new long[ep * 4];
            for (int e = 0; e < experts; e++) {
                LinkTokens.addColumn(gt, counts, experts, e, StaticLayout.home(e, ep, experts), 1, send, recv);
            }
            LinkTokens.Home home = home(gt, counts, experts);
            assertThat(home.send()).as("trial %d", trial).containsExactly(send);
            assertThat(home.recv()).as("trial %d", trial).containsExactly(recv);
        }
    }

    @Test
    void migrationRecomputesOnlyTheParameterTraffic() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(7);
        for (int trial = 0; trial < 100; trial++) {
            int ep = 8;
            int experts = 8 + rnd.nextInt(17);
            GroupTopology gt = Fixtures.group(ep, 4, 1);
            LayerPlacement p = Fixtures.randomPlacement(rnd, ep, experts, 3);
            long[] counts = Fixtures.counts(rnd, ep, experts, 500);
            CostModel m = new CostModel(MoeShape.generic("t", 1, experts, 2), trial % 2 == 0 ? Mode.REPLICATE : Mode.FSSDP);
            QuotaResult r = QuotaRule.apply(gt, p, counts, null);
            LayerPlacement from = LayerPlacement.staticLayout(ep, experts);
            assertThat(m.withMigration(gt, p, m.layer(gt, p, r, null), from)).isCloseTo(m.layer(gt, p, r, from).totalSec(),
                    within(1e-12));
        }
    }

    /** The all-at-home link sums, from the per-node and per-expert sums the planner computes alongside. */
    private static LinkTokens.Home home(GroupTopology gt, long[] counts, int experts) {
        int ep = gt.ep();
        long[] nodeDemand = new long[gt.nodeCount() * experts];
        for (int s = 0; s < ep; s++) {
            for (int e = 0; e < experts; e++) {
                nodeDemand[gt.nodeIndex(s) * experts + e] += counts[s * experts + e];
            }
        }
        return new LinkTokens.Home(LinkTokens.Home.sent(gt, counts, experts),
                LinkTokens.Home.received(gt, counts, experts, nodeDemand, totals(counts, experts)));
    }

    @Test
    void scoringWithoutStoredFlowsEqualsScoringTheRulesResult() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(9);
        for (int trial = 0; trial < 200; trial++) {
            Layer l = Layer.draw(rnd, trial);
            int experts = l.experts;
            GroupTopology gt = l.gt;
            LayerPlacement p = l.p;
            long[] counts = l.counts;
            long[] totals = l.totals;
            LinkTokens.Home home = home(gt, counts, experts);
            // One model and search for many placements, as planners use them: their buffers are reused from trial to trial.
            CostModel m = trial % 2 == 0 ? REUSED : new CostModel(MoeShape.generic("t", 1, experts, 2), Mode.FSSDP);
            LayerCost full = m.layer(gt, p, QuotaRule.apply(gt, p, counts, null), null);
            LayerCost scored = m.quotaRuleLayer(bound(trial % 2 == 0 ? REUSED_SEARCH : new PlacementSearch(), gt, counts, totals), p,
                    home, null);
            assertThat(scored).as("trial %d", trial).isEqualTo(full);
        }
    }

    /**
     * The planner's score of a placement ({@link CostModel#quotaRuleScore}) is, bit for bit, the steady cost times the
     * interval plus the one-off copy's difference ({@link CostModel#withMigration}), in both modes, with the plan in use
     * adopted from a placement holding some of the copies or none.
     */
    @Test
    void aScoreWithoutTheLayerCostIsTheLayerCostsScoreBitForBit() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(13);
        for (int trial = 0; trial < 200; trial++) {
            Layer l = Layer.draw(rnd, trial);
            Mode mode = trial % 4 == 3 ? Mode.FSSDP : Mode.REPLICATE;
            CostModel m = new CostModel(MoeShape.generic("t", 1, l.experts, 2), mode, 10 + rnd.nextInt(90));
            LinkTokens.Home home = home(l.gt, l.counts, l.experts);
            PlacementSearch search = bound(new PlacementSearch(), l.gt, l.counts, l.totals);
            LayerPlacement from = switch (trial % 3) {
                case 0 -> null;
                case 1 -> LayerPlacement.staticLayout(l.gt.ep(), l.experts);
                default -> Fixtures.randomPlacement(rnd, l.gt.ep(), l.experts, 1 + rnd.nextInt(4));
            };
            double interval = 1 + rnd.nextInt(100);
            LayerCost steady = m.quotaRuleLayer(search, l.p, home, null);
            double want = steady.totalSec() * interval;
            if (from != null) {
                want += m.withMigration(l.gt, l.p, steady, from) - steady.totalSec();
            }
            assertThat(m.quotaRuleScore(search, l.p, home, from, interval)).as("trial %d", trial).isEqualTo(want);
        }
    }

    @Test
    void theStaticLayoutCostsTheSameFromTheAllAtHomeSumsAsThroughTheRuleAndItsReceivedHalfBoundsItFromBelow() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(11);
        for (int trial = 0; trial < 100; trial++) {
            int ep = 4 + 4 * rnd.nextInt(3);
            int experts = ep + rnd.nextInt(3 * ep);
            GroupTopology gt = randomGroup(rnd, ep, trial % 2 == 1);
            LayerPlacement staticP = LayerPlacement.staticLayout(ep, experts);
            long[] counts = Fixtures.counts(rnd, ep, experts, 1 + rnd.nextInt(2000));
            long[] totals = totals(counts, experts);
            LinkTokens.Home home = home(gt, counts, experts);
            CostModel m = new CostModel(MoeShape.generic("t", 1, experts, 2), trial % 3 == 0 ? Mode.FSSDP : Mode.REPLICATE);
            LayerCost viaRule = m.quotaRuleLayer(bound(new PlacementSearch(), gt, counts, totals), staticP, home, null);
            assertThat(m.staticLayer(gt, staticP, java.util.Arrays.stream(totals).sum(), home, viaRule.maxTokens())).as("trial %d", trial).isEqualTo(viaRule);
            // From what GPUs receive alone: never above the real time, and above compute alone when tokens travel.
            double lower = m.staticLowerBound(gt, home.recv(), viaRule.maxTokens());
            assertThat(lower).isLessThanOrEqualTo(viaRule.totalSec());
            assertThat(lower).isGreaterThan(viaRule.computeSec());
        }
    }

    @Test
    void theUpperBoundIsNeverBelowTheRoutedCostAndTightensWithTheLoad() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(12);
        for (int trial = 0; trial < 200; trial++) {
            Layer l = Layer.draw(rnd, trial);
            int ep = l.gt.ep();
            int experts = l.experts;
            GroupTopology gt = l.gt;
            LayerPlacement p = l.p;
            long[] counts = l.counts;
            long[] totals = l.totals;
            long maxSent = 0;
            for (int s = 0; s < ep; s++) {
                long row = 0;
                for (int e = 0; e < experts; e++) {
                    row += counts[s * experts + e];
                }
                maxSent = Math.max(maxSent, row);
            }
            CostModel m = new CostModel(MoeShape.generic("t", 1, experts, 2), trial % 2 == 0 ? Mode.REPLICATE : Mode.FSSDP);
            PlacementSearch search = bound(new PlacementSearch(), gt, counts, totals);
            long maxLoad = search.maxLoad(p);
            LayerCost exact = m.quotaRuleLayer(search, p, home(gt, counts, experts), null);
            assertThat(maxLoad).isEqualTo(exact.maxTokens());
            double bound = m.upperBound(gt, p, maxLoad, maxSent);
            assertThat(bound).as("trial %d", trial).isGreaterThanOrEqualTo(exact.totalSec());
            // Not a constant: a lighter busiest GPU gives a lower bound (its compute and all-to-all terms shrink).
            assertThat(m.upperBound(gt, p, maxLoad / 2, maxSent / 2)).isLessThan(bound);
        }
    }

    /**
     * A random layer of one EP group: 4, 8 or 12 GPUs, up to 4 × as many experts, up to 4 copies per expert; every
     * third trial the EP ranks of a node are not contiguous (dealt round-robin over nodes).
     */
    private record Layer(int experts, GroupTopology gt, LayerPlacement p, long[] counts, long[] totals) {
        static Layer draw(java.util.SplittableRandom rnd, int trial) {
            int ep = 4 + 4 * rnd.nextInt(3);
            int experts = ep + rnd.nextInt(3 * ep);
            GroupTopology gt = randomGroup(rnd, ep, trial % 3 == 2);
            LayerPlacement p = Fixtures.randomPlacement(rnd, ep, experts, 1 + rnd.nextInt(4));
            long[] counts = Fixtures.counts(rnd, ep, experts, 1 + rnd.nextInt(2000));
            return new Layer(experts, gt, p, counts, CostModelTest.totals(counts, experts));
        }
    }

    /** A group of ep GPUs on 2-4 nodes in 1-2 racks; {@code interleaved}: a node's EP ranks are not contiguous. */
    private static GroupTopology randomGroup(java.util.SplittableRandom rnd, int ep, boolean interleaved) {
        return interleaved ? interleaved(ep, 2 + rnd.nextInt(3), 1 + rnd.nextInt(2))
                : Fixtures.group(ep, 2 + 2 * rnd.nextInt(2), 1 + rnd.nextInt(2));
    }

    /** Rank g on node g % nodes, node n in rack n / nodesPerRack. */
    private static GroupTopology interleaved(int ep, int nodes, int nodesPerRack) {
        int[] node = new int[ep];
        int[] rack = new int[ep];
        for (int g = 0; g < ep; g++) {
            node[g] = g % nodes;
            rack[g] = node[g] / nodesPerRack;
        }
        return GroupTopology.ofPlaces(node, rack, dev.ballast.planner.model.Hardware.DEFAULT);
    }

    private static long[] totals(long[] counts, int experts) {
        long[] totals = new long[experts];
        for (int i = 0; i < counts.length; i++) {
            totals[i % experts] += counts[i];
        }
        return totals;
    }

    private static final CostModel REUSED = new CostModel(MoeShape.generic("t", 1, 4, 2), Mode.REPLICATE);
    private static final PlacementSearch REUSED_SEARCH = new PlacementSearch();

    private static PlacementSearch bound(PlacementSearch search, GroupTopology gt, long[] counts, long[] totals) {
        search.startLayer(gt, counts, totals);
        return search;
    }

    @Test
    void theQuotaRulesCpuTimeIsChargedWhenTheRuleRoutesAndGrowsWithReplicas() {
        GroupTopology gt = Fixtures.group(4, 2, 1);
        LayerPlacement p = LayerPlacement.of(4, new int[][] {{0}, {1}, {2, 0}, {3}});
        long[] counts = new long[16];
        java.util.Arrays.fill(counts, 100);
        CostModel m = new CostModel(SHAPE, Mode.REPLICATE);
        LayerCost rule = m.layer(gt, p, QuotaRule.apply(gt, p, counts, null), null);
        LayerCost split = m.layer(gt, p, EqualSplit.apply(p, counts), null);
        double perLayer = CostModel.quotaRuleSeconds(4, 4, 5);
        assertThat(rule.quotaRuleSec()).isEqualTo(perLayer);
        assertThat(split.quotaRuleSec()).isZero();
        assertThat(rule.totalSec()).isCloseTo(rule.computeSec() + rule.allToAllSec() + rule.exposedParamSec() + perLayer,
                within(1e-15));
        // One replica costs more rule work than none; the planner's path charges the same as the rule's.
        assertThat(perLayer).isGreaterThan(CostModel.quotaRuleSeconds(4, 4, 4)).isGreaterThan(0);
        PlacementSearch search = new PlacementSearch();
        long[] totals = new long[4];
        for (int i = 0; i < counts.length; i++) {
            totals[i % 4] += counts[i];
        }
        search.startLayer(gt, counts, totals);
        LayerCost viaSearch = m.quotaRuleLayer(search, p, home(gt, counts, 4), null);
        assertThat(viaSearch.totalSec()).isCloseTo(rule.totalSec(), within(1e-15));
        // The bound the planner settles comparisons with stays above the exact time.
        assertThat(m.upperBound(gt, p, rule.maxTokens(), 400)).isGreaterThanOrEqualTo(rule.totalSec());
    }
}
