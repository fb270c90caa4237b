package dev.ballast.planner.quota;

import dev.ballast.planner.Fixtures;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.LinkTokens;
import dev.ballast.planner.model.StaticLayout;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The planner's view of the quota rule answers exactly as the rule itself. */
class PlacementSearchTest {

    private record Layer(GroupTopology gt, LayerPlacement p, long[] counts, long[] totals) {
        static Layer draw(SplittableRandom rnd) {
            int ep = 4 + 4 * rnd.nextInt(3);
            int experts = ep + rnd.nextInt(3 * ep);
            // Up to one node and one rack for the whole group: step 10's last class is then 1 or 2, not 3.
            int perNode = rnd.nextInt(3) == 2 ? ep : 2 + 2 * rnd.nextInt(2);
            int perRack = rnd.nextInt(3) == 2 ? ep : 1 + rnd.nextInt(2);
            GroupTopology gt = Fixtures.group(ep, perNode, perRack);
            LayerPlacement p = Fixtures.randomPlacement(rnd, ep, experts, 1 + rnd.nextInt(4));
            long[] counts = Fixtures.counts(rnd, ep, experts, 1 + rnd.nextInt(2000));
            return new Layer(gt, p, counts, PlacementSearchTest.totals(counts, experts));
        }
    }

    private static long[] totals(long[] counts, int experts) {
        long[] totals = new long[experts];
        for (int i = 0; i < counts.length; i++) {
            totals[i % experts] += counts[i];
        }
        return totals;
    }

    /** The counts' sums per (node, expert), {@code [node * experts + e]}, as the planner's layer demand holds them. */
    private static long[] nodeSums(Layer l) {
        int experts = l.p.experts();
        long[] sums = new long[l.gt.nodeCount() * experts];
        for (int i = 0; i < l.counts.length; i++) {
            sums[l.gt.nodeIndex(i / experts) * experts + i % experts] += l.counts[i];
        }
        return sums;
    }

    private static long maxLoad(QuotaResult r) {
        long max = 0;
        for (int g = 0; g < r.gpus(); g++) {
            max = Math.max(max, r.gpuLoad(g));
        }
        return max;
    }

    @Test
    void aSearchStoppedAtALoadBoundsTheBusiestAndGoesOnToTheSameAnswers() {
        SplittableRandom rnd = new SplittableRandom(3);
        PlacementSearch stopped = new PlacementSearch();
        PlacementSearch whole = new PlacementSearch();
        for (int trial = 0; trial < 300; trial++) {
            Layer l = Layer.draw(rnd);
            long[] sums = nodeSums(l);
            whole.startLayer(l.gt, l.counts, l.totals, sums);
            long max = whole.maxLoad(l.p);
            long mean = (whole.allTokens() + l.gt.ep() - 1) / l.gt.ep();
            stopped.startLayer(l.gt, l.counts, l.totals, sums);
            // Stop points around the busiest load, below it (the search cannot stop: the busiest itself) and far above.
            long enough = switch (trial % 4) {
                case 0 -> max - 1 - rnd.nextInt(3);
                case 1 -> max + rnd.nextInt(1 + (int) Math.min(mean / 8, 1000));
                case 2 -> mean + rnd.nextInt(1 + (int) Math.min(mean / 16, 1000));
                default -> Long.MAX_VALUE;
            };
            long atMost = stopped.maxLoadAtMost(l.p, enough);
            assertThat(atMost).as("trial %d", trial).isGreaterThanOrEqualTo(max);
            if (atMost > enough) {
                assertThat(atMost).as("trial %d: not stopped, so exact", trial).isEqualTo(max);
            }
            // Asked again, stopped at the same point or beyond it; then on to the end, with every answer the whole search's.
            assertThat(stopped.maxLoadAtMost(l.p, enough)).isBetween(max, atMost);
            assertThat(stopped.maxLoad(l.p)).isEqualTo(max);
            long aim = mean + rnd.nextInt(1 + (int) Math.max(0, max - mean));
            PlacementSearch.Probe a = stopped.probe(l.p, aim);
            PlacementSearch.Probe b = whole.probe(l.p, aim);
            assertThat(a.gpuLoad()).containsExactly(b.gpuLoad());
            assertThat(a.unplacedAtAim()).isEqualTo(b.unplacedAtAim());
            long[] sendA = new long[l.gt.ep() * 4];
            long[] recvA = new long[l.gt.ep() * 4];
            long[] sendB = new long[l.gt.ep() * 4];
            long[] recvB = new long[l.gt.ep() * 4];
            stopped.maxLoadAtMost(l.p, enough);
            assertThat(stopped.addFlows(l.p, sendA, recvA)).isEqualTo(whole.addFlows(l.p, sendB, recvB));
            assertThat(sendA).containsExactly(sendB);
            assertThat(recvA).containsExactly(recvB);
        }
    }

    @Test
    void loadsAndProbesAreTheRulesLoads() {
        SplittableRandom rnd = new SplittableRandom(1);
        PlacementSearch search = new PlacementSearch();
        for (int trial = 0; trial < 200; trial++) {
            Layer l = Layer.draw(rnd);
            QuotaResult rule = QuotaRule.apply(l.gt, l.p, l.counts, null);
            // Every other layer with the counts' node sums given, as the planner gives them: the same answers.
            search.startLayer(l.gt, l.counts, l.totals, trial % 2 == 0 ? null : nodeSums(l));
            assertThat(search.maxLoad(l.p)).as("trial %d", trial).isEqualTo(maxLoad(rule));
            PlacementSearch.Probe atThreshold = search.probe(l.p, rule.threshold());
            assertThat(atThreshold.unplacedAtAim()).isEqualTo(-1);
            assertThat(atThreshold.maxLoad()).isEqualTo(maxLoad(rule));
            for (int g = 0; g < l.gt.ep(); g++) {
                assertThat(atThreshold.gpuLoad()[g]).isEqualTo(rule.gpuLoad(g));
            }
            // Below the mean no fill can place every token.
            long mean = (search.allTokens() + l.gt.ep() - 1) / l.gt.ep();
            if (mean > 0) {
                assertThat(search.probe(l.p, mean - 1).unplacedAtAim()).isNotEqualTo(-1);
            }
        }
    }

    @Test
    void quotasFromTheNodeSumsAreTheRulesQuotas() {
        // The near shares read the node sums in place (rack sums only for the racks holding a copy): one node, one rack
        // and several racks per group, the rule's own quotas copy by copy.
        SplittableRandom rnd = new SplittableRandom(5);
        PlacementSearch search = new PlacementSearch();
        for (int trial = 0; trial < 300; trial++) {
            Layer l = Layer.draw(rnd);
            QuotaResult rule = QuotaRule.apply(l.gt, l.p, l.counts, null);
            search.startLayer(l.gt, l.counts, l.totals, nodeSums(l));
            long[] quotas = search.copyQuotas(l.p);
            for (int c = 0; c < l.p.totalCopies(); c++) {
                assertThat(quotas[c]).as("trial %d copy %d", trial, c).isEqualTo(rule.copyQuota(c));
            }
        }
    }

    @Test
    void summedFlowsAreTheRulesFlowsSummedPerGpuAndLinkClass() {
        SplittableRandom rnd = new SplittableRandom(2);
        PlacementSearch search = new PlacementSearch();
        for (int trial = 0; trial < 200; trial++) {
            Layer l = Layer.draw(rnd);
            int ep = l.gt.ep();
            int experts = l.p.experts();
            long[] wantSend = new long[ep * 4];
            long[] wantRecv = new long[ep * 4];
            QuotaRule.apply(l.gt, l.p, l.counts, null).forEachFlow((e, s, copy, tokens) -> {
                int cls = l.gt.linkClass(s, l.p.copyGpu(copy));
                wantSend[s * 4 + cls] += tokens;
                wantRecv[l.p.copyGpu(copy) * 4 + cls] += tokens;
            });
            // Start from the all-at-home sums, as the cost model does.
            long[] send = new long[ep * 4];
            long[] recv = new long[ep * 4];
            for (int e = 0; e < experts; e++) {
                LinkTokens.addColumn(l.gt, l.counts, experts, e, StaticLayout.home(e, ep, experts), 1, send, recv);
            }
            search.startLayer(l.gt, l.counts, l.totals, trial % 2 == 0 ? null : nodeSums(l));
            search.addFlows(l.p, send, recv);
            assertThat(send).as("trial %d", trial).containsExactly(wantSend);
            assertThat(recv).as("trial %d", trial).containsExactly(wantRecv);
        }
    }

    /**
     * As {@link #summedFlowsAreTheRulesFlowsSummedPerGpuAndLinkClass} on groups whose nodes and racks are not runs of
     * ranks (ranks dealt to nodes at random, nodes to racks at random), with experts that may have no copy at home and
     * up to a copy on every GPU: the sums visit only the home's and the copies' nodes and racks, in the group's order.
     */
    @Test
    void summedFlowsAreTheRulesFlowsOnScatteredGroupsAndPlacementsAwayFromHome() {
        SplittableRandom rnd = new SplittableRandom(5);
        PlacementSearch search = new PlacementSearch();
        for (int trial = 0; trial < 400; trial++) {
            int ep = 2 + rnd.nextInt(15);
            int experts = ep + rnd.nextInt(2 * ep);
            int nodes = 1 + rnd.nextInt(ep);
            int racks = 1 + rnd.nextInt(nodes);
            int[] rackOfNode = new int[nodes];
            for (int n = 0; n < nodes; n++) {
                rackOfNode[n] = n < racks ? n : rnd.nextInt(racks);
            }
            int[] node = new int[ep];
            int[] rack = new int[ep];
            for (int g = 0; g < ep; g++) {
                node[g] = g < nodes ? g : rnd.nextInt(nodes);
            }
            for (int g = ep - 1; g > 0; g--) {
                int o = rnd.nextInt(g + 1);
                int t = node[g];
                node[g] = node[o];
                node[o] = t;
            }
            for (int g = 0; g < ep; g++) {
                rack[g] = rackOfNode[node[g]];
            }
            GroupTopology gt = GroupTopology.ofPlaces(node, rack, dev.ballast.planner.model.Hardware.DEFAULT);
            int maxCopies = 1 + rnd.nextInt(Math.min(ep, 6));
            java.util.List<java.util.List<Integer>> lists = new java.util.ArrayList<>();
            for (int g = 0; g < ep; g++) {
                lists.add(new java.util.ArrayList<>());
            }
            for (int e = 0; e < experts; e++) {
                int k = 1 + rnd.nextInt(maxCopies);
                boolean home = rnd.nextBoolean();
                if (home) {
                    lists.get(StaticLayout.home(e, ep, experts)).add(e);
                }
                for (int j = home ? 1 : 0; j < k; j++) {
                    int g = rnd.nextInt(ep);
                    if (!lists.get(g).contains(e)) {
                        lists.get(g).add(e);
                    }
                }
            }
            int[][] arrays = new int[ep][];
            for (int g = 0; g < ep; g++) {
                arrays[g] = lists.get(g).stream().mapToInt(Integer::intValue).sorted().toArray();
            }
            LayerPlacement p = LayerPlacement.of(experts, arrays);
            long[] counts = Fixtures.counts(rnd, ep, experts, 1 + rnd.nextInt(3000));
            Layer l = new Layer(gt, p, counts, totals(counts, experts));
            long[] wantSend = new long[ep * 4];
            long[] wantRecv = new long[ep * 4];
            QuotaRule.apply(gt, p, counts, null).forEachFlow((e, s, copy, tokens) -> {
                int cls = gt.linkClass(s, p.copyGpu(copy));
                wantSend[s * 4 + cls] += tokens;
                wantRecv[p.copyGpu(copy) * 4 + cls] += tokens;
            });
            long[] send = new long[ep * 4];
            long[] recv = new long[ep * 4];
            for (int e = 0; e < experts; e++) {
                LinkTokens.addColumn(gt, counts, experts, e, StaticLayout.home(e, ep, experts), 1, send, recv);
            }
            long[] received = recv.clone();
            search.startLayer(gt, counts, l.totals, trial % 2 == 0 ? null : nodeSums(l));
            search.addFlows(p, send, recv);
            assertThat(send).as("trial %d", trial).containsExactly(wantSend);
            assertThat(recv).as("trial %d", trial).containsExactly(wantRecv);
            // The received half alone (from the node sums where given): the same receipts.
            search.addReceived(p, received);
            assertThat(received).as("trial %d, received half", trial).containsExactly(wantRecv);
        }
    }

    @Test
    void aProbeBetweenQuestionsLeavesTheAnswersUnchanged() {
        SplittableRandom rnd = new SplittableRandom(3);
        for (int trial = 0; trial < 100; trial++) {
            Layer l = Layer.draw(rnd);
            int ep = l.gt.ep();
            PlacementSearch probed = new PlacementSearch();
            probed.startLayer(l.gt, l.counts, l.totals);
            probed.probe(l.p, rnd.nextInt(3000));
            long[] send = new long[ep * 4];
            long[] recv = new long[ep * 4];
            long max = probed.addFlows(l.p, send, recv);
            PlacementSearch fresh = new PlacementSearch();
            fresh.startLayer(l.gt, l.counts, l.totals);
            long[] send2 = new long[ep * 4];
            long[] recv2 = new long[ep * 4];
            assertThat(fresh.addFlows(l.p, send2, recv2)).as("trial %d", trial).isEqualTo(max);
            assertThat(send).containsExactly(send2);
            assertThat(recv).containsExactly(recv2);
        }
    }

    @Test
    void aNewLayerIsSearchedAfreshEvenForTheSamePlacementObject() {
        SplittableRandom rnd = new SplittableRandom(4);
        GroupTopology gt = Fixtures.group(8, 4, 1);
        LayerPlacement p = Fixtures.randomPlacement(rnd, 8, 24, 2);
        PlacementSearch search = new PlacementSearch();
        for (int layer = 0; layer < 20; layer++) {
            long[] counts = Fixtures.counts(rnd, 8, 24, 1 + rnd.nextInt(2000));
            search.startLayer(gt, counts, totals(counts, 24));
            assertThat(search.maxLoad(p)).as("layer %d", layer).isEqualTo(maxLoad(QuotaRule.apply(gt, p, counts, null)));
        }
    }

    @Test
    void questionsNeedALayerAndCountsMustMatchTheTotals() {
        GroupTopology gt = Fixtures.group(2, 2, 1);
        LayerPlacement p = LayerPlacement.staticLayout(2, 2);
        assertThatThrownBy(() -> new PlacementSearch().maxLoad(p)).hasMessageContaining("startLayer");
        assertThatThrownBy(() -> new PlacementSearch().startLayer(gt, new long[3], new long[2]))
                .hasMessageContaining("counts length 3");
    }
}
