package dev.ballast.planner.model;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TopologyTest {
    @Test
    void parsesTheCompactSpec() {
        Topology t = Topology.parse("nodes=4,gpusPerNode=8,racks=2,nvlinkGBps=900,nicGBps=100");
        assertThat(t.gpus()).isEqualTo(32);
        assertThat(t.node(9)).isEqualTo(1);
        assertThat(t.rack(15)).isZero();
        assertThat(t.rack(16)).isEqualTo(1);
        assertThat(t.link(3, 3)).isEqualTo(LinkClass.SAME_GPU);
        assertThat(t.link(0, 7)).isEqualTo(LinkClass.NVLINK);
        assertThat(t.link(0, 8)).isEqualTo(LinkClass.NETWORK);
        assertThat(t.link(0, 31)).isEqualTo(LinkClass.CROSS_RACK);
        assertThat(t.hardware().nvlinkGBps()).isEqualTo(900);
        assertThat(t.hardware().crossRackGBps()).isEqualTo(25.0);
        assertThat(t.label()).isEqualTo("4x8(2 racks)");
    }

    @Test
    void specErrorsNameTheKey() {
        assertThatThrownBy(() -> Topology.parse("gpusPerNode=8")).hasMessageContaining("missing key 'nodes'");
        assertThatThrownBy(() -> Topology.parse("nodes=2,gpusPerNode=8,speed=3")).hasMessageContaining("unknown key 'speed'");
        assertThatThrownBy(() -> Topology.parse("nodes=0,gpusPerNode=8")).hasMessageContaining("'nodes' must be a positive integer");
        assertThatThrownBy(() -> Topology.parse("nodes=2,gpusPerNode=8,nicGBps=fast")).hasMessageContaining("'nicGBps' must be a number");
        assertThatThrownBy(() -> Topology.parse("nodes=2,gpusPerNode=8,racks=3")).hasMessageContaining("racks=3 exceeds nodes=2");
        assertThatThrownBy(() -> Topology.parse("nodes=2,nodes=3")).hasMessageContaining("given twice");
    }

    @Test
    void buildsFromTheOperatorsWorld() {
        Topology t = Topology.of(List.of(new GpuPlace(7, 1), new GpuPlace(7, 1), new GpuPlace(3, 0)), Hardware.DEFAULT);
        assertThat(t.gpus()).isEqualTo(3);
        assertThat(t.link(0, 1)).isEqualTo(LinkClass.NVLINK);
        assertThat(t.link(1, 2)).isEqualTo(LinkClass.CROSS_RACK);
        assertThatThrownBy(() -> Topology.of(List.of(new GpuPlace(1, 0), new GpuPlace(1, 1)), Hardware.DEFAULT))
                .hasMessageContaining("node 1 is in rack 0 and rack 1");
    }

    @Test
    void groupListsEachNodesAndRacksRanksInAscendingOrder() {
        // Ranks dealt round-robin over three nodes; nodes 0 and 2 share rack 5, node 1 is alone in rack 9.
        GroupTopology gt = GroupTopology.ofPlaces(new int[] {0, 1, 2, 0, 1, 2, 0}, new int[] {5, 9, 5, 5, 9, 5, 5},
                Hardware.DEFAULT);
        assertThat(members(gt, false)).containsExactly(List.of(0, 3, 6), List.of(1, 4), List.of(2, 5));
        assertThat(members(gt, true)).containsExactly(List.of(0, 2, 3, 5, 6), List.of(1, 4));
        assertThat(new int[] {gt.rackOfNode(0), gt.rackOfNode(1), gt.rackOfNode(2)}).containsExactly(0, 1, 0);
        assertThat(gt.groupsAreRankRuns()).isFalse();
        GroupTopology runs = GroupTopology.ofPlaces(new int[] {0, 0, 1, 1, 2, 2}, new int[] {0, 0, 0, 0, 1, 1},
                Hardware.DEFAULT);
        assertThat(runs.groupsAreRankRuns()).isTrue();
        assertThat(new int[] {runs.rackOfNode(0), runs.rackOfNode(1), runs.rackOfNode(2)}).containsExactly(0, 0, 1);
        // Nodes in runs, but one rack split around another: not runs.
        assertThat(GroupTopology.ofPlaces(new int[] {0, 1, 2}, new int[] {0, 1, 0}, Hardware.DEFAULT).groupsAreRankRuns())
                .isFalse();
    }

    private static List<List<Integer>> members(GroupTopology gt, boolean racks) {
        List<List<Integer>> out = new java.util.ArrayList<>();
        for (int x = 0; x < (racks ? gt.rackCount() : gt.nodeCount()); x++) {
            List<Integer> m = new java.util.ArrayList<>();
            int to = racks ? gt.rackMemberStart(x + 1) : gt.nodeMemberStart(x + 1);
            for (int i = racks ? gt.rackMemberStart(x) : gt.nodeMemberStart(x); i < to; i++) {
                m.add(racks ? gt.rackMember(i) : gt.nodeMember(i));
            }
            out.add(m);
        }
        return out;
    }

    @Test
    void parallelismResolvesEpAndStages() {
        Parallelism p = Parallelism.resolve(64, 256, null, 1);
        assertThat(p).isEqualTo(new Parallelism(64, 1, 1));
        assertThat(Parallelism.resolve(64, 8, null, 1)).isEqualTo(new Parallelism(8, 8, 1));
        Parallelism staged = Parallelism.resolve(16, 64, 4, 2);
        assertThat(staged).isEqualTo(new Parallelism(4, 2, 2));
        assertThat(staged.gpu(1, 1, 3)).isEqualTo(15);
        assertThat(staged.stageOf(0, 5)).isZero();
        assertThat(staged.stageOf(2, 5)).isEqualTo(1);
        assertThat(staged.firstLayer(1, 5)).isEqualTo(2);
        assertThatThrownBy(() -> Parallelism.resolve(24, 64, 16, 1)).hasMessageContaining("does not divide the 24 GPUs");
        assertThatThrownBy(() -> Parallelism.resolve(64, 8, 16, 1)).hasMessageContaining("must be in [1, experts=8]");
    }

    @Test
    void staticLayoutHandlesExpertsNotDivisibleByEp() {
        // 10 experts over 4 ranks: floor(e*4/10) = 0,0,0,1,1,2,2,2,3,3 -> blocks of 3,2,3,2.
        int[] homes = StaticLayout.homes(4, 10);
        assertThat(homes).containsExactly(0, 0, 0, 1, 1, 2, 2, 2, 3, 3);
        for (int g = 0; g < 4; g++) {
            assertThat(StaticLayout.homeCount(g, 4, 10)).isBetween(2, 3);
        }
        assertThat(StaticLayout.maxHomeCount(4, 10)).isEqualTo(3);
        LayerPlacement p = LayerPlacement.staticLayout(4, 10);
        assertThat(p.expertsOn(2)).containsExactly(5, 6, 7);
        for (int e = 0; e < 10; e++) {
            assertThat(p.copies(e)).isEqualTo(1);
            assertThat(p.copyGpu(p.copyStart(e))).isEqualTo(homes[e]);
        }
    }
}
