package dev.ballast.operator.placement;

import static dev.ballast.operator.placement.Clusters.gpusUsed;
import static dev.ballast.operator.placement.Clusters.concat;
import static dev.ballast.operator.placement.Clusters.domain;
import static dev.ballast.operator.placement.Clusters.gang;
import static dev.ballast.operator.placement.Clusters.nodesOf;
import static dev.ballast.operator.placement.Clusters.placed;
import static dev.ballast.operator.placement.Clusters.reason;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Jobs placed one after another, each seeing the GPUs promised to the ones before: none is promised twice. */
class CompetingJobsTest {

  @Test
  void secondJobGetsOnlyWhatTheFirstLeft() {
    List<GpuNode> nodes = concat(domain("d1", 4, "D1", "r1"), domain("d2", 4, "D2", "r1"));
    Map<String, Integer> used = new HashMap<>();

    Placement.Placed a = placed(GangPlacer.place(nodes, gpusUsed(used), gang(3, 3, 8)));
    assertThat(nodesOf(a)).containsExactly("d1-0", "d1-1", "d1-2");
    a.gpusByNode().forEach((node, gpus) -> used.merge(node, gpus, Integer::sum));

    // B would like 4 and the cluster has 5 free nodes: the idle domain d2 holds all 4.
    Placement.Placed b = placed(GangPlacer.place(nodes, gpusUsed(used), gang(3, 4, 8)));
    assertThat(nodesOf(b)).containsExactly("d2-0", "d2-1", "d2-2", "d2-3");
    b.gpusByNode().forEach((node, gpus) -> used.merge(node, gpus, Integer::sum));

    assertThat(reason(GangPlacer.place(nodes, gpusUsed(used), gang(2, 2, 8))))
        .startsWith("needs 2 workers × 8 GPUs (workers.min 2, workers.max 2) but only 1 fits: 1 of 8 GPU nodes");
  }

  @Test
  void sharedNodesNeverExceedTheirGpus() {
    // 4-GPU and 2-GPU jobs packed onto 8-GPU nodes: every GPU is promised at most once.
    List<GpuNode> nodes = concat(domain("a", 3, "A", "r1"), domain("b", 3, "B", "r2"));
    Map<String, Integer> used = new HashMap<>(Map.of("a-1", 2));
    int[][] jobs = {{3, 3, 4}, {2, 5, 2}, {1, 4, 4}, {2, 3, 2}, {1, 8, 1}};
    int promised = 0;
    for (int[] job : jobs) {
      Placement.Placed p = placed(GangPlacer.place(nodes, gpusUsed(used), gang(job[0], job[1], job[2])));
      p.gpusByNode().forEach((node, gpus) -> used.merge(node, gpus, Integer::sum));
      promised += p.workers().size() * job[2];
    }
    for (GpuNode node : nodes) assertThat(used.getOrDefault(node.name(), 0)).isLessThanOrEqualTo(node.allocatableGpus());
    assertThat(used.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(2 + promised);
    // The 1-GPU job at the end takes everything left: the cluster is full.
    assertThat(2 + promised).isEqualTo(48);
  }
}
