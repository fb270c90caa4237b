package dev.ballast.operator.placement;

import static dev.ballast.operator.placement.Clusters.gpusUsed;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Random clusters (fixed seeds): the answer does not depend on input order, and every placement keeps
 * the invariants — capacity, eligibility, worker count, topology order, one domain when one fits.
 */
class DeterminismTest {
  private static final Taint RESERVED = new Taint("gpu", "reserved", Taint.NO_SCHEDULE);

  @Test
  void shuffledInputGivesTheSameOutput() {
    Random random = new Random(7);
    for (int round = 0; round < 20; round++) {
      List<GpuNode> nodes = randomCluster(random, 120);
      Map<String, Integer> used = randomUse(random, nodes);
      GangRequest request = new GangRequest(1 + random.nextInt(4), 4 + random.nextInt(30), 1 << random.nextInt(4), List.of());
      Placement expected = GangPlacer.place(nodes, gpusUsed(used), request);
      for (int shuffle = 0; shuffle < 5; shuffle++) {
        List<GpuNode> shuffled = new ArrayList<>(nodes);
        Collections.shuffle(shuffled, random);
        assertThat(GangPlacer.place(shuffled, gpusUsed(new HashMap<>(used)), request)).isEqualTo(expected);
      }
    }
  }

  @Test
  void placementsKeepTheirInvariants() {
    Random random = new Random(11);
    int placedCount = 0;
    for (int round = 0; round < 300; round++) {
      List<GpuNode> nodes = randomCluster(random, 10 + random.nextInt(80));
      Map<String, Integer> used = randomUse(random, nodes);
      int g = 1 << random.nextInt(4);
      int min = 1 + random.nextInt(12);
      GangRequest request = new GangRequest(min, min + random.nextInt(20), g, List.of());

      Map<String, Integer> capacity = new TreeMap<>(); // what a naive scan says each node can take
      for (GpuNode n : nodes) {
        if (n.ready() && !n.unschedulable() && n.taints().isEmpty()) {
          int free = Math.max(0, n.allocatableGpus() - used.getOrDefault(n.name(), 0));
          if (free >= g) capacity.put(n.name(), free / g);
        }
      }
      int total = capacity.values().stream().mapToInt(Integer::intValue).sum();
      Placement placement = GangPlacer.place(nodes, gpusUsed(used), request);
      if (total < min) {
        assertThat(placement).isInstanceOf(Placement.Unplaceable.class);
        continue;
      }
      placedCount++;
      Placement.Placed placed = (Placement.Placed) placement;
      assertThat(placed.workers()).hasSize(Math.min(request.maxWorkers(), total));
      placed.gpusByNode().forEach((node, gpus) -> assertThat(gpus / g).isLessThanOrEqualTo(capacity.getOrDefault(node, 0)));

      List<String> keys = placed.workers().stream().map(DeterminismTest::topologyKey).toList();
      assertThat(keys).isSorted();
      for (int i = 0; i < placed.workers().size(); i++) assertThat(placed.workers().get(i).nodeRank()).isEqualTo(i);

      Map<String, Integer> byDomain = new HashMap<>();
      capacity.forEach((node, c) -> byDomain.merge(domainKey(find(nodes, node)), c, Integer::sum));
      boolean oneDomainFits = byDomain.values().stream().anyMatch(c -> c >= placed.workers().size());
      Set<String> domainsUsed = new HashSet<>();
      placed.workers().forEach(w -> domainsUsed.add(domainKey(find(nodes, w.node()))));
      if (oneDomainFits) assertThat(domainsUsed).hasSize(1);

      Map<String, Integer> byRack = new HashMap<>();
      capacity.forEach((node, c) -> byRack.merge(rackKey(find(nodes, node)), c, Integer::sum));
      boolean oneRackFits = byRack.values().stream().anyMatch(c -> c >= placed.workers().size());
      Set<String> racksUsed = new HashSet<>();
      placed.workers().forEach(w -> racksUsed.add(rackKey(find(nodes, w.node()))));
      if (oneRackFits) assertThat(racksUsed).hasSize(1);
    }
    assertThat(placedCount).isGreaterThan(100);
  }

  /** Sorts like node rank must: labelled racks, then domain-only groups, then bare nodes; then domain; then node. */
  private static String topologyKey(WorkerSlot w) {
    String rack = w.rack() != null ? "0" + w.rack() : w.domain() != null ? "1" + w.domain() : "2" + w.node();
    String domain = w.domain() != null ? "0" + w.domain() : "1" + w.node();
    return rack + "\u0000" + domain + "\u0000" + w.node();
  }

  private static String domainKey(GpuNode n) {
    return n.domain() == null ? "node:" + n.name() : n.rack() + "/" + n.domain();
  }

  /** Nodes without a rack label are grouped by their domain, or alone. */
  private static String rackKey(GpuNode n) {
    return n.rack() != null ? "rack:" + n.rack() : n.domain() != null ? "domain:" + n.domain() : "node:" + n.name();
  }

  private static GpuNode find(List<GpuNode> nodes, String name) {
    return nodes.stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
  }

  /** Racks of 4-GPU and 8-GPU nodes in domains of up to 4, some unlabelled, a few unusable. */
  static List<GpuNode> randomCluster(Random random, int size) {
    List<GpuNode> nodes = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      String rack = random.nextInt(10) == 0 ? null : "rack-" + random.nextInt(4);
      String domain = random.nextInt(8) == 0 ? null : "nvl-" + random.nextInt(6);
      int gpus = random.nextInt(5) == 0 ? 4 : 8;
      boolean ready = random.nextInt(30) != 0;
      boolean cordoned = random.nextInt(30) == 0;
      List<Taint> taints = random.nextInt(25) == 0 ? List.of(RESERVED) : List.of();
      nodes.add(new GpuNode(String.format("node-%03d", i), gpus, ready, cordoned, taints, domain, rack));
    }
    return nodes;
  }

  static Map<String, Integer> randomUse(Random random, List<GpuNode> nodes) {
    Map<String, Integer> used = new HashMap<>();
    for (GpuNode n : nodes) {
      if (random.nextInt(3) == 0) used.put(n.name(), random.nextInt(n.allocatableGpus() + 1));
    }
    return used;
  }
}
