package dev.ballast.operator.placement;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Small builders for test clusters and assertions on placements. */
final class Clusters {
  private Clusters() {}

  static GpuNode node(String name, int gpus, String domain, String rack) {
    return new GpuNode(name, gpus, true, false, List.of(), domain, rack);
  }

  /** {@code count} 8-GPU nodes named prefix-0.. in one domain and rack. */
  static List<GpuNode> domain(String prefix, int count, String domain, String rack) {
    List<GpuNode> nodes = new ArrayList<>();
    for (int i = 0; i < count; i++) nodes.add(node(prefix + "-" + i, 8, domain, rack));
    return nodes;
  }

  @SafeVarargs
  static List<GpuNode> concat(List<GpuNode>... parts) {
    List<GpuNode> all = new ArrayList<>();
    for (List<GpuNode> part : parts) all.addAll(part);
    return all;
  }

  /** GPUs used per node, as the resources placement reads. */
  static Map<String, Resources> gpusUsed(Map<String, Integer> gpus) {
    Map<String, Resources> used = new TreeMap<>();
    gpus.forEach((node, n) -> used.put(node, Resources.gpus(n)));
    return used;
  }

  static GangRequest gang(int min, int max, int gpusPerWorker) {
    return new GangRequest(min, max, gpusPerWorker, List.of());
  }

  static Placement.Placed placed(Placement placement) {
    assertThat(placement).isInstanceOf(Placement.Placed.class);
    return (Placement.Placed) placement;
  }

  static String reason(Placement placement) {
    assertThat(placement).isInstanceOf(Placement.Unplaceable.class);
    return ((Placement.Unplaceable) placement).reason();
  }

  /** Node name per worker, in node-rank order. */
  static List<String> nodesOf(Placement placement) {
    return placed(placement).workers().stream().map(WorkerSlot::node).toList();
  }
}
