package dev.ballast.planner.ballast;

import dev.ballast.planner.Fixtures;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.planners.PlanningContext;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class LoadShedderTest {

    private static long max(SheddingState st) {
        long m = 0;
        for (int g = 0; g < st.ep(); g++) {
            m = Math.max(m, st.load(g));
        }
        return m;
    }

    @Test
    void sheddingConservesLoadNeverRaisesTheBusiestGpuAndBalancesWhenSlotsAllow() {
        SplittableRandom rnd = new SplittableRandom(1);
        for (int trial = 0; trial < 40; trial++) {
            PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=4,racks=1", 32, 1 + rnd.nextInt(3), Mode.REPLICATE);
            GroupTopology gt = ctx.group(0, 0);
            LayerDemand d = LayerDemand.of(gt, LayerFixtures.skewed(rnd, 8, 32), 32);
            SheddingState st = SheddingState.fresh(8, 32, ctx.redundantSlots(), d);
            long before = max(st);
            LoadShedder shedder = new LoadShedder(gt, st, d, TrafficBytes.of(ctx));
            shedder.run();
            long sum = 0;
            for (int g = 0; g < 8; g++) {
                sum += st.load(g);
                assertThat(st.replicaCount(g)).isLessThanOrEqualTo(ctx.redundantSlots());
            }
            assertThat(sum).isEqualTo(d.allTokens());
            assertThat(max(st)).as("trial %d", trial).isLessThanOrEqualTo(before);
            assertThat(shedder.target()).isEqualTo((d.allTokens() + 7) / 8);
        }
    }

    /**
     * The target chosen one candidate per node (its GPU with the most room) is the one a scan of every open GPU picks:
     * the best by score, nearness, room and index among those with a useful share's room, else among all. Nodes here are
     * interleaved ranks (not runs), so a later node's candidate can be an earlier GPU.
     */
    @Test
    void aNewCopysTargetIsTheBestOfAScanOfEveryOpenGpu() {
        SplittableRandom rnd = new SplittableRandom(5);
        PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=4,racks=1", 32, 2, Mode.REPLICATE);
        TrafficBytes bytes = TrafficBytes.of(ctx);
        int checked = 0;
        for (int trial = 0; trial < 200; trial++) {
            int ep = 8;
            int[] node = new int[ep];
            int[] rack = new int[ep];
            for (int g = 0; g < ep; g++) {
                node[g] = trial % 2 == 0 ? g / 4 : rnd.nextInt(3);
                rack[g] = node[g] / 2;
            }
            GroupTopology gt = GroupTopology.ofPlaces(node, rack, dev.ballast.planner.model.Hardware.DEFAULT);
            long[] counts = LayerFixtures.skewed(rnd, ep, 32);
            if (trial % 3 == 0) {
                // Even counts but for one hot expert on GPU 0: the other GPUs tie on room, and nodes of a size on score.
                java.util.Arrays.fill(counts, 100);
                for (int s = 0; s < ep; s++) {
                    counts[s * 32] = 100_000;
                }
            }
            LayerDemand d = LayerDemand.of(gt, counts, 32);
            SheddingState st = SheddingState.fresh(ep, 32, 2, d);
            for (int i = 0; i < (trial % 3 == 0 ? 0 : 6); i++) {
                int e = rnd.nextInt(32);
                int g = rnd.nextInt(ep);
                if (!st.holds(e, g) && st.hasFreeSlot(g)) {
                    st.addReplica(e, g);
                    st.shift(e, g, rnd.nextInt(1 + (int) Math.min(d.total(e), 1000)));
                }
            }
            LoadShedder shedder = new LoadShedder(gt, st, d, bytes);
            long target = shedder.target();
            long[] open = new long[1];
            for (int g = 0; g < ep; g++) {
                // Ties in room on purpose: some GPUs' loads are made equal by drawing the open set from all of them.
                if (st.hasFreeSlot(g) && st.load(g) < target && rnd.nextInt(4) > 0) {
                    open[0] |= 1L << g;
                }
            }
            for (int k = 0; k < 8; k++) {
                int e = rnd.nextInt(32);
                int src = rnd.nextInt(ep);
                long useful = 1 + rnd.nextInt((int) Math.max(1, Math.min(target, 1 << 20)));
                boolean[] covered = new boolean[gt.nodeCount()];
                for (int c = 0; c < st.copyCount(e); c++) {
                    covered[gt.nodeIndex(st.copyGpu(e, c))] = true;
                }
                int homeNode = gt.nodeIndex(st.home(e));
                assertThat(shedder.chooseTarget(open, e, src, useful, covered, homeNode)).as("trial %d", trial)
                        .isEqualTo(scanEveryGpu(gt, st, d, bytes, target, open[0], e, src, useful, covered, homeNode));
                checked++;
            }
        }
        assertThat(checked).isPositive();
    }

    /**
     * Keeping each node's best open GPU between new copies (refreshed only where a GPU of the node gained or lost load)
     * sheds exactly as finding it afresh for every copy: the same copies, the same loads, on rank-run and interleaved
     * nodes, over a first run and a second one after more replicas took load.
     */
    @Test
    void keepingEachNodesBestOpenGpuShedsAsFindingItAfresh() {
        SplittableRandom rnd = new SplittableRandom(11);
        PlanningContext ctx = LayerFixtures.context("nodes=4,gpusPerNode=4,racks=2", 64, 2, Mode.REPLICATE);
        TrafficBytes bytes = TrafficBytes.of(ctx);
        int ep = 16;
        int experts = 64;
        long replicas = 0;
        for (int trial = 0; trial < 200; trial++) {
            int[] node = new int[ep];
            int[] rack = new int[ep];
            for (int g = 0; g < ep; g++) {
                node[g] = trial % 2 == 0 ? g / 4 : rnd.nextInt(4);
                rack[g] = node[g] / 2;
            }
            GroupTopology gt = GroupTopology.ofPlaces(node, rack, dev.ballast.planner.model.Hardware.DEFAULT);
            long[] counts = trial % 3 == 0 ? LayerFixtures.zipf(ep, experts, trial) : LayerFixtures.skewed(rnd, ep, experts);
            LayerDemand d = LayerDemand.of(gt, counts, experts);
            int slots = 1 + rnd.nextInt(3);
            String[] after = new String[2];
            for (int keep = 0; keep < 2; keep++) {
                SheddingState st = SheddingState.fresh(ep, experts, slots, d);
                LoadShedder shedder = new LoadShedder(gt, st, d, bytes, keep == 1);
                shedder.run();
                // More replicas take load, as the local replicas do between the two runs of a plan.
                SplittableRandom again = new SplittableRandom(trial);
                for (int i = 0; i < 10; i++) {
                    int e = again.nextInt(experts);
                    int g = again.nextInt(ep);
                    if (!st.holds(e, g) && st.hasFreeSlot(g)) {
                        st.addReplica(e, g);
                        st.shift(e, g, again.nextInt(1 + (int) Math.min(d.total(e), 1 << 20)));
                    }
                }
                shedder.run();
                StringBuilder b = new StringBuilder();
                for (int g = 0; g < ep; g++) {
                    b.append(st.load(g)).append(':');
                }
                for (int e = 0; e < experts; e++) {
                    for (int k = 0; k < st.copyCount(e); k++) {
                        b.append(e).append('@').append(st.copyGpu(e, k)).append('=').append(st.copyLoad(e, k)).append(' ');
                    }
                }
                after[keep] = b.toString();
                if (keep == 1) {
                    for (int g = 0; g < ep; g++) {
                        replicas += st.replicaCount(g);
                    }
                }
            }
            assertThat(after[1]).as("trial %d", trial).isEqualTo(after[0]);
        }
        assertThat(replicas).isGreaterThan(1000);
    }

    /** The choice as a scan of every open GPU without a copy of e, earliest first, keeping the first of equals. */
    private static int scanEveryGpu(GroupTopology gt, SheddingState st, LayerDemand d, TrafficBytes bytes, long target,
                                    long open, int e, int src, long useful, boolean[] covered, int homeNode) {
        int best = -1;
        int any = -1;
        double[] score = new double[gt.ep()];
        for (int g = 0; g < gt.ep(); g++) {
            int n = gt.nodeIndex(g);
            score[g] = (covered[n] ? 0 : d.nodeTokens(n, e) * bytes.perToken()) - bytes.perReplica(n == homeNode);
        }
        for (int g = 0; g < gt.ep(); g++) {
            if ((open >>> g & 1) == 0 || st.holds(e, g)) {
                continue;
            }
            if (target - st.load(g) >= useful && (best < 0 || better(gt, src, g, best, score, st, target))) {
                best = g;
            }
            if (any < 0 || better(gt, src, g, any, score, st, target)) {
                any = g;
            }
        }
        return best >= 0 ? best : any;
    }

    private static boolean better(GroupTopology gt, int src, int g, int than, double[] score, SheddingState st, long target) {
        if (score[g] != score[than]) {
            return score[g] > score[than];
        }
        boolean near = gt.nodeIndex(g) == gt.nodeIndex(src);
        boolean thanNear = gt.nodeIndex(than) == gt.nodeIndex(src);
        return near != thanNear ? near : target - st.load(g) > target - st.load(than);
    }

    @Test
    void aHotExpertIsSplitToTheMeanAndItsReplicaGoesWhereItsTokensComeFrom() {
        // Two nodes of two GPUs; expert 3 (home GPU 1, node 0) is hot and its tokens come from node 1 (GPUs 2, 3), enough
        // to outweigh a replica's refresh bytes.
        GroupTopology gt = Fixtures.group(4, 2, 1);
        PlanningContext ctx = LayerFixtures.context("nodes=2,gpusPerNode=2,racks=1", 8, 1, Mode.REPLICATE);
        long[] counts = new long[4 * 8];
        for (int s = 0; s < 4; s++) {
            for (int e = 0; e < 8; e++) {
                counts[s * 8 + e] = 10;
            }
        }
        counts[2 * 8 + 3] = 5000;
        counts[3 * 8 + 3] = 5000;
        LayerDemand d = LayerDemand.of(gt, counts, 8);
        SheddingState st = SheddingState.fresh(4, 8, 1, d);
        LoadShedder shedder = new LoadShedder(gt, st, d, TrafficBytes.of(ctx));
        shedder.run();
        assertThat(max(st) - shedder.target()).isLessThanOrEqualTo(shedder.target() / 1000);
        assertThat(gt.nodeIndex(st.copyGpu(3, 1))).as("the replica sits on the node sending the tokens").isEqualTo(1);
    }
}
