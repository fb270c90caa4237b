package dev.ballast.operator.placement;

import static dev.ballast.operator.placement.Clusters.gang;
import static dev.ballast.operator.placement.Clusters.node;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RevalidateTest {

  @Test
  void aHealthyPlacementHasNoProblems() {
    List<GpuNode> nodes = List.of(node("a", 8, "D", "r1"), node("b", 8, "D", "r1"));
    assertThat(GangPlacer.revalidate(nodes, List.of("a", "a", "b"), gang(3, 3, 4))).isEmpty();
  }

  @Test
  void reportsEachBrokenNodeOnceInRankOrder() {
    List<GpuNode> nodes = List.of(
        node("ok", 8, "D", "r1"),
        new GpuNode("down", 8, false, false, List.of(), "D", "r1"),
        new GpuNode("cordoned", 8, true, true, List.of(), "D", "r1"),
        new GpuNode("tainted", 8, true, false, List.of(new Taint("maintenance", null, Taint.NO_EXECUTE)), "D", "r1"),
        node("shrunk", 4, "D", "r1"));
    List<NodeProblem> problems = GangPlacer.revalidate(nodes,
        List.of("ok", "gone", "gone", "down", "cordoned", "tainted", "shrunk", "shrunk"), gang(8, 8, 4));
    assertThat(problems).extracting(NodeProblem::cause).containsExactly(Exclusion.GONE, Exclusion.NOT_READY,
        Exclusion.CORDONED, Exclusion.UNTOLERATED_TAINT, Exclusion.TOO_FEW_GPUS);
    assertThat(problems).extracting(NodeProblem::message).containsExactly(
        "node gone is not among the GPU nodes",
        "node down is not Ready",
        "node cordoned is cordoned",
        "node tainted has the untolerated taint maintenance:NoExecute",
        "node shrunk has 4 allocatable GPUs but its 2 worker(s) need 8");
  }
}
