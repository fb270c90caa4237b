package dev.ballast.operator.placement;

import static dev.ballast.operator.placement.Clusters.gpusUsed;
import static dev.ballast.operator.placement.Clusters.concat;
import static dev.ballast.operator.placement.Clusters.domain;
import static dev.ballast.operator.placement.Clusters.gang;
import static dev.ballast.operator.placement.Clusters.node;
import static dev.ballast.operator.placement.Clusters.nodesOf;
import static dev.ballast.operator.placement.Clusters.placed;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where the gang goes: domain before rack before spreading, best fit, worker counts, rank order. */
class TopologyPlacementTest {

  @Test
  void prefersTheDomainThatHoldsTheWholeGang() {
    // Rack r1 has 2 + 2 nodes in two domains; rack r2 has one 4-node domain. Rack r1 is no
    // smaller, but only r2 keeps 3 workers inside one NVLink domain.
    List<GpuNode> nodes = concat(domain("a", 2, "A", "r1"), domain("b", 2, "B", "r1"), domain("c", 4, "C", "r2"));
    Placement.Placed p = placed(GangPlacer.place(nodes, Map.of(), gang(3, 3, 8)));
    assertThat(nodesOf(p)).containsExactly("c-0", "c-1", "c-2");
    assertThat(p.locality()).isEqualTo(Placement.Locality.ONE_DOMAIN);
    assertThat(p.workers()).extracting(WorkerSlot::domain).containsOnly("C");
  }

  @Test
  void bestFitPicksTheSmallestDomainThatFits() {
    List<GpuNode> nodes = concat(domain("big", 8, "D8", "r1"), domain("mid", 4, "D4", "r1"), domain("small", 2, "D2", "r1"));
    assertThat(nodesOf(GangPlacer.place(nodes, Map.of(), gang(3, 3, 8)))).containsExactly("mid-0", "mid-1", "mid-2");
    assertThat(nodesOf(GangPlacer.place(nodes, Map.of(), gang(2, 2, 8)))).containsExactly("small-0", "small-1");
    assertThat(nodesOf(GangPlacer.place(nodes, Map.of(), gang(5, 5, 8)))).allMatch(n -> n.startsWith("big-"));
  }

  @Test
  void bestFitCountsFreeCapacityNotSize() {
    // Domain X has 8 nodes but only 3 free; it fits 3 workers more tightly than the idle 4-node domain Y.
    List<GpuNode> nodes = concat(domain("x", 8, "X", "r1"), domain("y", 4, "Y", "r1"));
    Map<String, Integer> used = Map.of("x-0", 8, "x-1", 8, "x-2", 8, "x-3", 8, "x-4", 8);
    assertThat(nodesOf(GangPlacer.place(nodes, gpusUsed(used), gang(3, 3, 8)))).containsExactly("x-5", "x-6", "x-7");
  }

  @Test
  void fallsBackToOneRackWhenNoDomainFits() {
    // No domain holds 5; rack r2 (3 + 3) does. It takes its largest domain whole, then the rest from
    // the tightest domain left.
    List<GpuNode> nodes = concat(domain("a", 2, "A", "r1"), domain("b", 2, "B", "r1"),
        domain("c", 3, "C", "r2"), domain("d", 3, "D", "r2"));
    Placement.Placed p = placed(GangPlacer.place(nodes, Map.of(), gang(5, 5, 8)));
    assertThat(nodesOf(p)).containsExactly("c-0", "c-1", "c-2", "d-0", "d-1");
    assertThat(p.locality()).isEqualTo(Placement.Locality.ONE_RACK);
  }

  @Test
  void aDomainAnywhereBeatsARackThatFitsMoreTightly() {
    List<GpuNode> nodes = concat(domain("a", 2, "A", "r1"), domain("b", 2, "B", "r1"), domain("c", 6, "C", "r2"));
    assertThat(nodesOf(GangPlacer.place(nodes, Map.of(), gang(4, 4, 8))))
        .containsExactly("c-0", "c-1", "c-2", "c-3");
  }

  @Test
  void spreadsAcrossRacksLargestFirstThenTightest() {
    // Racks of 6, 3 and 5 free nodes; 9 workers: all of r1 (largest), then r2, the tightest rack for the last 3.
    List<GpuNode> nodes = concat(domain("r1n", 6, null, "r1"), domain("r2n", 3, null, "r2"), domain("r3n", 5, null, "r3"));
    Placement.Placed p = placed(GangPlacer.place(nodes, Map.of(), gang(9, 9, 8)));
    assertThat(nodesOf(p)).containsExactly(
        "r1n-0", "r1n-1", "r1n-2", "r1n-3", "r1n-4", "r1n-5", "r2n-0", "r2n-1", "r2n-2");
    assertThat(p.locality()).isEqualTo(Placement.Locality.SEVERAL_RACKS);
  }

  @Test
  void theRemainderOfASpreadGangPrefersOneDomain() {
    // 10 workers: rack r1 (8 nodes) whole, then 2 more. Rack r2 has a 2-node domain and 3 single nodes:
    // the 2 go into the domain, not onto two unrelated nodes.
    List<GpuNode> nodes = concat(domain("r1n", 8, "R1", "r1"),
        List.of(node("r2-solo-0", 8, null, "r2"), node("r2-solo-1", 8, null, "r2"), node("r2-solo-2", 8, null, "r2")),
        domain("r2-pair", 2, "P", "r2"));
    assertThat(nodesOf(GangPlacer.place(nodes, Map.of(), gang(10, 10, 8))))
        .endsWith("r2-pair-0", "r2-pair-1")
        .hasSize(10);
  }

  @Test
  void severalWorkersShareANodeWithEnoughGpus() {
    // 8-GPU nodes, 4-GPU workers: n3 has only 4 free (one worker).
    List<GpuNode> nodes = domain("n", 3, "D", "r1");
    Map<String, Integer> used = Map.of("n-2", 4);
    Placement.Placed two = placed(GangPlacer.place(nodes, gpusUsed(used), gang(2, 2, 4)));
    assertThat(nodesOf(two)).containsExactly("n-0", "n-0");
    assertThat(two.locality()).isEqualTo(Placement.Locality.ONE_NODE);
    // One worker goes to the node it fills exactly, keeping whole nodes free.
    assertThat(nodesOf(GangPlacer.place(nodes, gpusUsed(used), gang(1, 1, 4)))).containsExactly("n-2");
    assertThat(nodesOf(GangPlacer.place(nodes, gpusUsed(used), gang(4, 4, 4)))).containsExactly("n-0", "n-0", "n-1", "n-1");
    assertThat(nodesOf(GangPlacer.place(nodes, gpusUsed(used), gang(5, 5, 4)))).containsExactly("n-0", "n-0", "n-1", "n-1", "n-2");
  }

  @Test
  void placesAsManyAsFitUpToMax() {
    List<GpuNode> ten = domain("n", 10, "D", "r1");
    assertThat(placed(GangPlacer.place(ten, Map.of(), gang(2, 4, 8))).workers()).hasSize(4);
    List<GpuNode> three = domain("n", 3, "D", "r1");
    assertThat(placed(GangPlacer.place(three, Map.of(), gang(2, 8, 8))).workers()).hasSize(3);
    assertThat(placed(GangPlacer.place(three, Map.of(), gang(3, 3, 8))).workers()).hasSize(3);
  }

  @Test
  void nodeRankFollowsTopologyNotInputOrder() {
    // Two racks, two domains each, 8-GPU nodes with 4-GPU workers; input in reverse name order.
    List<GpuNode> nodes = new ArrayList<>(concat(domain("r1-a", 2, "A", "r1"), domain("r1-b", 2, "B", "r1"),
        domain("r2-c", 2, "C", "r2"), domain("r2-d", 2, "D", "r2")));
    Collections.reverse(nodes);
    Placement.Placed p = placed(GangPlacer.place(nodes, Map.of(), gang(14, 14, 4)));
    assertThat(p.workers()).extracting(WorkerSlot::nodeRank).containsExactlyElementsOf(range(14));
    assertThat(nodesOf(p)).containsExactly("r1-a-0", "r1-a-0", "r1-a-1", "r1-a-1", "r1-b-0", "r1-b-0",
        "r1-b-1", "r1-b-1", "r2-c-0", "r2-c-0", "r2-c-1", "r2-c-1", "r2-d-0", "r2-d-0");
    assertThat(p.workers()).extracting(WorkerSlot::rack).containsSequence("r1", "r2");
    assertThat(p.gpusByNode()).containsEntry("r2-d-0", 8).doesNotContainKey("r2-d-1");
  }

  @Test
  void unlabelledNodesAreTheirOwnDomainAndDomainOnlyNodesGroupByDomain() {
    // No rack labels: the 3 nodes of clique Q form a group; bare nodes are singletons.
    List<GpuNode> nodes = concat(List.of(node("bare-0", 8, null, null), node("bare-1", 8, null, null)),
        domain("q", 3, "Q", null));
    Placement.Placed p = placed(GangPlacer.place(nodes, Map.of(), gang(3, 3, 8)));
    assertThat(nodesOf(p)).containsExactly("q-0", "q-1", "q-2");
    assertThat(p.workers()).extracting(WorkerSlot::rack).containsOnlyNulls();
    Placement.Placed two = placed(GangPlacer.place(nodes, gpusUsed(Map.of("q-0", 8)), gang(2, 2, 8)));
    assertThat(nodesOf(two)).containsExactly("q-1", "q-2");
    assertThat(two.locality()).isEqualTo(Placement.Locality.ONE_DOMAIN);
  }

  @Test
  void aDomainLabelSeenInTwoRacksIsTwoDomains() {
    List<GpuNode> nodes = concat(domain("a", 2, "SAME", "r1"), domain("b", 2, "SAME", "r2"));
    Placement.Placed p = placed(GangPlacer.place(nodes, Map.of(), gang(3, 3, 8)));
    assertThat(p.locality()).isEqualTo(Placement.Locality.SEVERAL_RACKS);
    assertThat(nodesOf(p)).containsExactly("a-0", "a-1", "b-0");
  }

  private static List<Integer> range(int n) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < n; i++) out.add(i);
    return out;
  }
}
