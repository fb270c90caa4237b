package dev.ballast.operator.placement;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Gang placement, topology-aware: chooses nodes for all workers of a job at once, or says in numbers
 * why it cannot. Pure and deterministic: the same nodes in any order give the same answer. The
 * algorithm and its decisions are described in docs/placement.md.
 */
public final class GangPlacer {
  private GangPlacer() {}

  /**
   * Places as many workers as fit, up to {@code request.maxWorkers()}, never fewer than
   * {@code request.minWorkers()}.
   *
   * @param nodes the cluster's GPU nodes (names unique)
   * @param used resources already requested per node name, by pods bound there or promised there
   *     (missing means none; names not in {@code nodes} are ignored)
   */
  public static Placement place(List<GpuNode> nodes, Map<String, Resources> used, GangRequest request) {
    Objects.requireNonNull(nodes, "nodes");
    Objects.requireNonNull(used, "used");
    Objects.requireNonNull(request, "request");
    requireUniqueNames(nodes);
    List<GpuNode> hosts = new ArrayList<>();
    int[] capacity = new int[nodes.size()];
    long totalCapacity = 0;
    ExclusionTally tally = new ExclusionTally();
    for (GpuNode node : nodes) {
      Resources free = node.allocatable().minus(used.getOrDefault(node.name(), Resources.NONE));
      Exclusion cause = Exclusion.of(node, free, request);
      if (cause != null) {
        tally.exclude(node, cause, free, request);
        continue;
      }
      tally.host(free, request);
      int workers = free.fits(request.perWorker());
      capacity[hosts.size()] = workers;
      totalCapacity += workers;
      hosts.add(node);
    }
    if (totalCapacity < request.minWorkers()) {
      return new Placement.Unplaceable(tally.explain(request, nodes.size(), hosts.size(), totalCapacity),
          tally.shortResource(request));
    }
    CapacityTree tree = CapacityTree.of(hosts, capacity);
    int[] perNode = tree.select((int) Math.min(request.maxWorkers(), totalCapacity));
    return placed(tree, perNode, request.perWorker());
  }

  private static Placement.Placed placed(CapacityTree tree, int[] perNode, Resources perWorker) {
    List<WorkerSlot> workers = new ArrayList<>();
    Set<Integer> domains = new HashSet<>();
    Set<Integer> racks = new HashSet<>();
    int nodesUsed = 0;
    for (int k = 0; k < tree.nodeCount(); k++) {
      if (perNode[k] == 0) continue;
      nodesUsed++;
      domains.add(tree.domainOf(k));
      racks.add(tree.rackOf(k));
      GpuNode node = tree.node(k);
      for (int w = 0; w < perNode[k]; w++) {
        workers.add(new WorkerSlot(workers.size(), node.name(), node.domain(), node.rack()));
      }
    }
    Placement.Locality locality = nodesUsed == 1 ? Placement.Locality.ONE_NODE
        : domains.size() == 1 ? Placement.Locality.ONE_DOMAIN
        : racks.size() == 1 ? Placement.Locality.ONE_RACK
        : Placement.Locality.SEVERAL_RACKS;
    return new Placement.Placed(workers, perWorker, locality);
  }

  /** Whether {@code node} could host a worker of {@code request} were it empty (its free resources aside). */
  public static boolean eligible(GpuNode node, GangRequest request) {
    return Exclusion.of(node, node.allocatable(), request) == null;
  }

  /**
   * Checks that an existing placement can still hold its workers: every node still exists, is Ready,
   * not cordoned, still matches the template's nodeSelector and required node affinity, has no taint
   * the job does not tolerate, and can allocate what the workers placed on it request. Free resources
   * are not checked, since the job's own pods use them. A caller re-checking a running world may choose
   * to ignore {@link Exclusion#CORDONED} and {@link Exclusion#NOT_SELECTED}, which do not evict.
   *
   * @param placedNodes one node name per worker, e.g. the world in node-rank order
   * @return problems in first-appearance order of the nodes; empty when the placement is still valid
   */
  public static List<NodeProblem> revalidate(List<GpuNode> nodes, List<String> placedNodes, GangRequest request) {
    Objects.requireNonNull(nodes, "nodes");
    Objects.requireNonNull(placedNodes, "placedNodes");
    Objects.requireNonNull(request, "request");
    requireUniqueNames(nodes);
    Map<String, GpuNode> byName = new LinkedHashMap<>();
    for (GpuNode node : nodes) byName.put(node.name(), node);
    Map<String, Integer> workersPerNode = new LinkedHashMap<>();
    for (String name : placedNodes) workersPerNode.merge(Objects.requireNonNull(name, "placed node name"), 1, Integer::sum);

    List<NodeProblem> problems = new ArrayList<>();
    workersPerNode.forEach((name, workers) -> {
      NodeProblem problem = problem(byName.get(name), name, workers, request);
      if (problem != null) problems.add(problem);
    });
    return problems;
  }

  private static NodeProblem problem(GpuNode node, String name, int workers, GangRequest request) {
    if (node == null) return new NodeProblem(name, Exclusion.GONE, "is not among the GPU nodes");
    if (!node.ready()) return new NodeProblem(name, Exclusion.NOT_READY, "is not Ready");
    if (node.unschedulable()) return new NodeProblem(name, Exclusion.CORDONED, "is cordoned");
    if (!request.selection().matches(node)) {
      return new NodeProblem(name, Exclusion.NOT_SELECTED,
          "no longer matches the template's nodeSelector or required node affinity");
    }
    Taint taint = request.untoleratedTaint(node);
    if (taint != null) return new NodeProblem(name, Exclusion.UNTOLERATED_TAINT, "has the untolerated taint " + taint);
    Resources needed = request.perWorker().times(workers);
    String tooSmall = node.allocatable().firstShort(needed);
    if (tooSmall == null) return null;
    if (Resources.GPU.equals(tooSmall)) {
      return new NodeProblem(name, Exclusion.TOO_FEW_GPUS, "has " + node.allocatableGpus()
          + " allocatable GPUs but its " + workers + " worker(s) need " + needed.get(Resources.GPU));
    }
    return new NodeProblem(name, Exclusion.TOO_SMALL, "can allocate "
        + Resources.describe(tooSmall, node.allocatable().get(tooSmall)) + " but its " + workers
        + " worker(s) request " + Resources.describe(tooSmall, needed.get(tooSmall)));
  }

  private static void requireUniqueNames(List<GpuNode> nodes) {
    Set<String> seen = new HashSet<>();
    for (GpuNode node : nodes) {
      Objects.requireNonNull(node, "null entry in the node list");
      if (!seen.add(node.name())) throw new IllegalArgumentException("node " + node.name() + " is listed twice");
    }
  }
}
