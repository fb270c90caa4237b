package dev.ballast.operator.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The nodes that can host workers, sorted once into topology order (rack, then NVLink domain, then
 * node name) so that every rack and domain is a contiguous range, with each unit's capacity in
 * workers. {@link #select} chooses nodes for a gang on primitive arrays.
 *
 * <p>Grouping: a domain is the nodes that share a rack and a domain label value (an NVLink domain
 * never spans racks, so a value seen in two racks is two domains). A node without a domain label is a
 * domain of its own. A node without a rack label sits in a pseudo-rack made of its domain, so a
 * cluster that labels only NVLink domains still groups by domain; a node with neither label is its
 * own domain and its own rack. Labelled racks come first in rank order, then pseudo-racks.
 */
final class CapacityTree {
  private static final int CLUSTER = 0;
  private static final int RACK = 1;
  private static final int DOMAIN = 2;
  private static final int NODE = 3;

  private final GpuNode[] nodes;
  private final int[] nodeCapacity;
  private final int[] nodeDomain;
  private final int[] domainStart; // node range [domainStart, domainEnd)
  private final int[] domainEnd;
  private final int[] domainCapacity;
  private final int[] domainRack;
  private final int[] rackStart; // domain range [rackStart, rackEnd)
  private final int[] rackEnd;
  private final int[] rackCapacity;

  /** {@code capacity[i]} is how many workers {@code hosts.get(i)} can take (>= 1). */
  static CapacityTree of(List<GpuNode> hosts, int[] capacity) {
    int n = hosts.size();
    String[] rackKey = new String[n];
    String[] domainKey = new String[n];
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      GpuNode node = hosts.get(i);
      // The leading digit orders labelled groups before derived ones and keeps the key spaces apart.
      rackKey[i] = node.rack() != null ? "0" + node.rack()
          : node.domain() != null ? "1" + node.domain() : "2" + node.name();
      domainKey[i] = node.domain() != null ? "0" + node.domain() : "1" + node.name();
      order[i] = i;
    }
    Arrays.sort(order, Comparator.<Integer, String>comparing(i -> rackKey[i])
        .thenComparing(i -> domainKey[i])
        .thenComparing(i -> hosts.get(i).name()));
    return new CapacityTree(hosts, capacity, order, rackKey, domainKey);
  }

  private CapacityTree(List<GpuNode> hosts, int[] capacity, Integer[] order, String[] rackKey, String[] domainKey) {
    int n = order.length;
    nodes = new GpuNode[n];
    nodeCapacity = new int[n];
    nodeDomain = new int[n];
    List<int[]> domains = new ArrayList<>(); // {start, end, capacity, rack}
    List<int[]> racks = new ArrayList<>(); // {start, end, capacity}
    for (int k = 0; k < n; k++) {
      int i = order[k];
      nodes[k] = hosts.get(i);
      nodeCapacity[k] = capacity[i];
      boolean newRack = k == 0 || !rackKey[i].equals(rackKey[order[k - 1]]);
      boolean newDomain = newRack || !domainKey[i].equals(domainKey[order[k - 1]]);
      if (newRack) racks.add(new int[] {domains.size(), domains.size(), 0});
      int[] rack = racks.get(racks.size() - 1);
      if (newDomain) {
        domains.add(new int[] {k, k, 0, racks.size() - 1});
        rack[1]++;
      }
      int[] domain = domains.get(domains.size() - 1);
      domain[1] = k + 1;
      domain[2] += capacity[i];
      rack[2] += capacity[i];
      nodeDomain[k] = domains.size() - 1;
    }
    domainStart = column(domains, 0);
    domainEnd = column(domains, 1);
    domainCapacity = column(domains, 2);
    domainRack = column(domains, 3);
    rackStart = column(racks, 0);
    rackEnd = column(racks, 1);
    rackCapacity = column(racks, 2);
  }

  private static int[] column(List<int[]> rows, int c) {
    int[] out = new int[rows.size()];
    for (int r = 0; r < out.length; r++) out[r] = rows.get(r)[c];
    return out;
  }

  int nodeCount() {
    return nodes.length;
  }

  GpuNode node(int k) {
    return nodes[k];
  }

  int domainOf(int k) {
    return nodeDomain[k];
  }

  int rackOf(int k) {
    return domainRack[nodeDomain[k]];
  }

  /**
   * Workers per node (indexed in topology order) for a gang of {@code workers}, which must not exceed
   * the total capacity. Within a unit (the cluster, a rack, a domain) the gang goes whole onto the
   * tightest single sub-unit that holds it, searching nodes first, then domains, then racks, and
   * taking the one with the least spare capacity (best fit; ties to the first by name). If no
   * sub-unit holds it, the largest child is taken whole (fewest children used) and the rest placed
   * the same way.
   */
  int[] select(int workers) {
    return new Selection().run(workers);
  }

  /** One run of {@link #select}: the spare capacity left at each level while workers are assigned. */
  private final class Selection {
    private final int[][] free = {null, rackCapacity.clone(), domainCapacity.clone(), nodeCapacity.clone()};
    private final int[] taken = new int[nodes.length];

    int[] run(int workers) {
      long total = 0;
      for (int c : rackCapacity) total += c;
      if (workers < 0 || workers > total) {
        throw new IllegalArgumentException("cannot select " + workers + " workers from capacity " + total);
      }
      if (workers > 0) fill(CLUSTER, 0, workers);
      return taken;
    }

    private void fill(int level, int unit, int want) {
      if (level == NODE) {
        assign(unit, want);
        return;
      }
      while (want > 0) {
        for (int lvl = NODE; lvl > level; lvl--) {
          int tightest = tightest(lvl, level, unit, want);
          if (tightest >= 0) {
            fill(lvl, tightest, want);
            return;
          }
        }
        int child = largest(level + 1, level, unit);
        int all = free[level + 1][child];
        fill(level + 1, child, all);
        want -= all;
      }
    }

    /** Among units at {@code lvl} inside ({@code level}, {@code unit}), the one with least free >= want, or -1. */
    private int tightest(int lvl, int level, int unit, int want) {
      int[] f = free[lvl];
      int hi = end(lvl, level, unit);
      int best = -1;
      for (int i = start(lvl, level, unit); i < hi; i++) {
        if (f[i] >= want && (best < 0 || f[i] < f[best])) best = i;
      }
      return best;
    }

    /** Among units at {@code lvl} inside ({@code level}, {@code unit}), the one with most free capacity. */
    private int largest(int lvl, int level, int unit) {
      int[] f = free[lvl];
      int hi = end(lvl, level, unit);
      int best = -1;
      for (int i = start(lvl, level, unit); i < hi; i++) {
        if (f[i] > 0 && (best < 0 || f[i] > f[best])) best = i;
      }
      return best;
    }

    private void assign(int node, int workers) {
      taken[node] += workers;
      free[NODE][node] -= workers;
      free[DOMAIN][nodeDomain[node]] -= workers;
      free[RACK][domainRack[nodeDomain[node]]] -= workers;
    }
  }

  /** First index at level {@code lvl} inside ({@code level}, {@code unit}); lvl is below level. */
  private int start(int lvl, int level, int unit) {
    if (level == CLUSTER) return 0;
    int firstDomain = level == RACK ? rackStart[unit] : unit;
    return lvl == DOMAIN ? firstDomain : domainStart[firstDomain];
  }

  /** End (exclusive) index at level {@code lvl} inside ({@code level}, {@code unit}). */
  private int end(int lvl, int level, int unit) {
    if (level == CLUSTER) {
      return switch (lvl) {
        case RACK -> rackCapacity.length;
        case DOMAIN -> domainCapacity.length;
        default -> nodes.length;
      };
    }
    int lastDomain = level == RACK ? rackEnd[unit] - 1 : unit;
    return lvl == DOMAIN ? lastDomain + 1 : domainEnd[lastDomain];
  }
}
