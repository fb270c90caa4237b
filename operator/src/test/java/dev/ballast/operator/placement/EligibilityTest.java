package dev.ballast.operator.placement;

import static dev.ballast.operator.placement.Clusters.gpusUsed;
import static dev.ballast.operator.placement.Clusters.gang;
import static dev.ballast.operator.placement.Clusters.node;
import static dev.ballast.operator.placement.Clusters.nodesOf;
import static dev.ballast.operator.placement.Clusters.reason;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which nodes may host a worker, and the reason given when too few can. */
class EligibilityTest {
  private static final Taint RESERVED = new Taint("gpu", "reserved", Taint.NO_SCHEDULE);

  private static GpuNode tainted(String name, Taint... taints) {
    return new GpuNode(name, 8, true, false, List.of(taints), "D", "r1");
  }

  @Test
  void untoleratedTaintsExcludeANodeAndTolerationsLetItBack() {
    List<GpuNode> nodes = List.of(tainted("t-0", RESERVED), node("n-0", 8, "D", "r1"));
    assertThat(nodesOf(GangPlacer.place(nodes, Map.of(), gang(1, 2, 8)))).containsExactly("n-0");

    GangRequest tolerant = new GangRequest(1, 2, 8, List.of(new Toleration("gpu", "Equal", "reserved", "NoSchedule")));
    assertThat(nodesOf(GangPlacer.place(nodes, Map.of(), tolerant))).containsExactly("n-0", "t-0");
  }

  @Test
  void noExecuteTaintsExcludeAndPreferNoScheduleIsIgnored() {
    List<GpuNode> nodes = List.of(
        tainted("exec", new Taint("maintenance", null, Taint.NO_EXECUTE)),
        tainted("prefer", new Taint("gpu", "busy", Taint.PREFER_NO_SCHEDULE)));
    assertThat(nodesOf(GangPlacer.place(nodes, Map.of(), gang(1, 2, 8)))).containsExactly("prefer");
  }

  @Test
  void everyBlockingTaintMustBeTolerated() {
    GpuNode both = tainted("both", RESERVED, new Taint("maintenance", null, Taint.NO_EXECUTE));
    GangRequest onlyGpu = new GangRequest(1, 1, 8, List.of(new Toleration("gpu", "Exists", null, null)));
    assertThat(GangPlacer.place(List.of(both), Map.of(), onlyGpu)).isInstanceOf(Placement.Unplaceable.class);
    GangRequest everything = new GangRequest(1, 1, 8, List.of(new Toleration(null, "Exists", null, null)));
    assertThat(nodesOf(GangPlacer.place(List.of(both), Map.of(), everything))).containsExactly("both");
  }

  @Test
  void cordonedAndNotReadyNodesAreSkipped() {
    List<GpuNode> nodes = List.of(
        new GpuNode("cordoned", 8, true, true, List.of(), "D", "r1"),
        new GpuNode("down", 8, false, false, List.of(), "D", "r1"),
        node("ok", 8, "D", "r1"));
    assertThat(nodesOf(GangPlacer.place(nodes, Map.of(), gang(1, 3, 8)))).containsExactly("ok");
  }

  @Test
  void usedGpusAreNotFree() {
    List<GpuNode> nodes = List.of(node("a", 8, "D", "r1"), node("b", 8, "D", "r1"));
    // 3 GPUs used on a leave 5: room for one 4-GPU worker there, two on b.
    assertThat(nodesOf(GangPlacer.place(nodes, gpusUsed(Map.of("a", 3)), gang(1, 8, 4)))).containsExactly("a", "b", "b");
    // More used than allocatable (e.g. a node shrank) counts as zero free, not negative.
    assertThat(nodesOf(GangPlacer.place(nodes, gpusUsed(Map.of("a", 12, "ghost", 8)), gang(1, 8, 4)))).containsExactly("b", "b");
  }

  @Test
  void reasonCountsExcludedNodesByCause() {
    List<GpuNode> nodes = List.of(
        node("n1", 8, "D", "r1"),
        node("n2", 8, "D", "r1"),
        node("n3", 8, "D", "r1"),
        new GpuNode("n4", 8, true, true, List.of(), "D", "r1"),
        new GpuNode("n5", 8, false, false, List.of(), "D", "r1"),
        tainted("n6", RESERVED),
        tainted("n7", new Taint("maintenance", null, Taint.NO_EXECUTE)),
        node("n8", 4, "D", "r1"));
    String reason = reason(GangPlacer.place(nodes, gpusUsed(Map.of("n2", 8, "n3", 6)), gang(4, 6, 8)));
    assertThat(reason).isEqualTo("needs 4 workers × 8 GPUs (workers.min 4, workers.max 6) but only 1 fits: "
        + "1 of 8 GPU nodes can host a worker; excluded: 1 node is not Ready, 1 node is cordoned, "
        + "2 nodes have untolerated taints (e.g. gpu=reserved:NoSchedule on n6), "
        + "1 node has fewer than 8 GPUs in all, 2 nodes lack 8 free GPUs (2 GPUs free on them in all)");
  }

  @Test
  void fragmentedCapacityIsCalledOut() {
    // 16 GPUs free in all, but 4 per node: two 8-GPU workers cannot run.
    List<GpuNode> nodes = List.of(node("a", 8, "D", "r1"), node("b", 8, "D", "r1"),
        node("c", 8, "D", "r1"), node("d", 8, "D", "r1"));
    Map<String, Integer> used = Map.of("a", 4, "b", 4, "c", 4, "d", 4);
    String reason = reason(GangPlacer.place(nodes, gpusUsed(used), gang(2, 2, 8)));
    assertThat(reason).isEqualTo("needs 2 workers × 8 GPUs (workers.min 2, workers.max 2) but none fits: "
        + "0 of 4 GPU nodes can host a worker; excluded: 4 nodes lack 8 free GPUs (16 GPUs free on them in all)"
        + " — 16 GPUs are free on schedulable nodes, enough in all but not in blocks of 8 on one node (fragmented)");
    // The same free GPUs do fit 4-GPU workers.
    assertThat(nodesOf(GangPlacer.place(nodes, gpusUsed(used), gang(2, 4, 4)))).containsExactly("a", "b", "c", "d");
  }

  @Test
  void reasonWhenEveryNodeCanHostButTooFewWorkersFit() {
    List<GpuNode> nodes = List.of(node("a", 8, "D", "r1"), node("b", 8, "D", "r1"));
    assertThat(reason(GangPlacer.place(nodes, Map.of(), gang(3, 4, 8))))
        .isEqualTo("needs 3 workers × 8 GPUs (workers.min 3, workers.max 4) but only 2 fit: 2 of 2 GPU nodes can host a worker");
  }

  @Test
  void reasonForAnEmptyCluster() {
    assertThat(reason(GangPlacer.place(List.of(), Map.of(), gang(1, 1, 1))))
        .isEqualTo("needs 1 worker × 1 GPU (workers.min 1, workers.max 1) but none fits: the cluster has no GPU nodes");
  }
}
