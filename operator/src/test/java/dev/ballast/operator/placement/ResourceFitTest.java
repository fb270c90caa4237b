package dev.ballast.operator.placement;

import static dev.ballast.operator.placement.Clusters.nodesOf;
import static dev.ballast.operator.placement.Clusters.placed;
import static dev.ballast.operator.placement.Clusters.reason;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every resource a worker requests, against what each node can allocate and what its pods already request. */
class ResourceFitTest {
  static final long GI = 1L << 30;

  /** An 8-GPU node with 32 cpu, 256Gi memory and room for 110 pods. */
  static GpuNode node(String name) {
    return withAllocatable(name, Map.of(Resources.CPU, 32_000L, Resources.MEMORY, 256 * GI, Resources.PODS, 110L));
  }

  static GpuNode withAllocatable(String name, Map<String, Long> others) {
    return new GpuNode(name, Resources.gpus(8).plus(new Resources(others)), true, false, List.of(), "D", "r1",
        Map.of());
  }

  /** A worker of {@code gpus} GPUs and {@code milliCpu} cpu, 8Gi memory and a pod slot. */
  static GangRequest gang(int min, int max, int gpus, long milliCpu) {
    Resources perWorker = new Resources(Map.of(Resources.GPU, (long) gpus, Resources.CPU, milliCpu,
        Resources.MEMORY, 8 * GI, Resources.PODS, 1L));
    return new GangRequest(min, max, perWorker, List.of(), NodeSelection.ANY);
  }

  @Test
  void theScarcestResourceDecidesHowManyWorkersANodeHolds() {
    // GPUs would allow four 2-GPU workers per node; 32 cpu allow only two of 12 cpu.
    Placement.Placed p = placed(GangPlacer.place(List.of(node("a"), node("b")), Map.of(), gang(1, 8, 2, 12_000)));
    assertThat(p.workers()).extracting(WorkerSlot::node).containsExactly("a", "a", "b", "b");
    assertThat(p.requestsByNode().get("a").get(Resources.CPU)).isEqualTo(24_000);
  }

  @Test
  void nodesThatHostFewerWorkersThanTheirGpusAllowSaySo() {
    String reason = reason(GangPlacer.place(List.of(node("a"), node("b")), Map.of(), gang(5, 5, 2, 12_000)));
    assertThat(reason).isEqualTo("needs 5 workers × 2 GPUs (workers.min 5, workers.max 5) but only 4 fit: 2 of 2 GPU"
        + " nodes can host a worker; on 2 of them free cpu allows fewer workers than free GPUs (12 cpu per worker)");
  }

  @Test
  void requestsOfPodsAlreadyOnANodeAreNotFree() {
    Map<String, Resources> used = Map.of("a", new Resources(Map.of(Resources.CPU, 30_500L, Resources.PODS, 7L)));
    assertThat(nodesOf(GangPlacer.place(List.of(node("a"), node("b")), used, gang(1, 2, 8, 4_000))))
        .containsExactly("b");

    String reason = reason(GangPlacer.place(List.of(node("a"), node("b")), used, gang(2, 2, 8, 4_000)));
    assertThat(reason).isEqualTo("needs 2 workers × 8 GPUs (workers.min 2, workers.max 2) but only 1 fits: 1 of 2"
        + " GPU nodes can host a worker; excluded: 1 node lacks 4 cpu free for one worker (1.5 cpu free)");
  }

  @Test
  void aNodeTooSmallForOneWorkerSaysWhichResourceAndByHowMuch() {
    List<GpuNode> nodes = List.of(
        withAllocatable("small-0", Map.of(Resources.CPU, 32_000L, Resources.MEMORY, 4 * GI, Resources.PODS, 110L)),
        withAllocatable("small-1", Map.of(Resources.CPU, 32_000L, Resources.MEMORY, 6 * GI + GI / 2,
            Resources.PODS, 110L)),
        withAllocatable("no-pods", Map.of(Resources.CPU, 32_000L, Resources.MEMORY, 256 * GI)));
    String reason = reason(GangPlacer.place(nodes, Map.of(), gang(1, 1, 8, 1_000)));
    assertThat(reason).isEqualTo("needs 1 worker × 8 GPUs (workers.min 1, workers.max 1) but none fits: 0 of 3"
        + " GPU nodes can host a worker; excluded: 2 nodes have less than 8Gi memory allocatable, what one worker"
        + " requests (6.5Gi memory on the largest), 1 node has less than 1 pod allocatable, what one worker requests (0 pods)");
  }

  @Test
  void anExtendedResourceTheNodesLackKeepsTheWorkersOff() {
    GangRequest rdma = new GangRequest(1, 1,
        Resources.gpus(8).plus(Resources.of("rdma/hca", 1)), List.of(), NodeSelection.ANY);
    assertThat(reason(GangPlacer.place(List.of(node("a")), Map.of(), rdma)))
        .endsWith("excluded: 1 node has less than 1 rdma/hca allocatable, what one worker requests (0 rdma/hca)");
    GpuNode withRdma = new GpuNode("r", Resources.gpus(8).plus(Resources.of("rdma/hca", 4)), true, false, List.of(),
        null, null, Map.of());
    assertThat(nodesOf(GangPlacer.place(List.of(node("a"), withRdma), Map.of(), rdma))).containsExactly("r");
  }

  @Test
  void freeGpusWithoutFreeCpuAreNotCalledFragmented() {
    Map<String, Resources> used = Map.of("a", Resources.of(Resources.CPU, 30_000), "b", Resources.of(Resources.CPU, 30_000));
    assertThat(reason(GangPlacer.place(List.of(node("a"), node("b")), used, gang(1, 1, 8, 4_000))))
        .endsWith("excluded: 2 nodes lack 4 cpu free for one worker (2 cpu free on the one with most)")
        .doesNotContain("fragmented");
  }

  @Test
  void theShortResourceIsNamedOnlyWhenTheGpusWouldSuffice() {
    Map<String, Resources> busyCpu = Map.of("a", Resources.of(Resources.CPU, 30_000), "b", Resources.of(Resources.CPU, 30_000));
    assertThat(shortResource(GangPlacer.place(List.of(node("a"), node("b")), busyCpu, gang(2, 2, 8, 4_000))))
        .as("16 GPUs free, cpu short on both nodes").isEqualTo(Resources.CPU);
    assertThat(shortResource(GangPlacer.place(List.of(node("a"), node("b")), Map.of(), gang(5, 5, 2, 12_000))))
        .as("free cpu bounds both hosts below their GPUs").isEqualTo(Resources.CPU);
    List<GpuNode> smallMemory = List.of(
        withAllocatable("small", Map.of(Resources.CPU, 32_000L, Resources.MEMORY, 4 * GI, Resources.PODS, 110L)));
    assertThat(shortResource(GangPlacer.place(smallMemory, Map.of(), gang(1, 1, 8, 1_000)))).isEqualTo(Resources.MEMORY);
    assertThat(shortResource(GangPlacer.place(List.of(node("a"), node("b")), busyCpu, gang(3, 3, 8, 4_000))))
        .as("3 workers need 24 GPUs; 16 exist: GPUs are short whatever else is").isEqualTo(Resources.GPU);
  }

  static String shortResource(Placement placement) {
    assertThat(placement).isInstanceOf(Placement.Unplaceable.class);
    return ((Placement.Unplaceable) placement).shortResource();
  }

  @Test
  void revalidationChecksEveryResourceAWorldNeeds() {
    GpuNode shrunk = withAllocatable("shrunk", Map.of(Resources.CPU, 20_000L, Resources.MEMORY, 256 * GI,
        Resources.PODS, 110L));
    List<NodeProblem> problems = GangPlacer.revalidate(List.of(node("a"), shrunk), List.of("a", "a", "shrunk", "shrunk"),
        gang(4, 4, 4, 12_000));
    assertThat(problems).extracting(NodeProblem::cause).containsExactly(Exclusion.TOO_SMALL);
    assertThat(problems.get(0).message()).isEqualTo("node shrunk can allocate 20 cpu but its 2 worker(s) request 24 cpu");
  }
}
