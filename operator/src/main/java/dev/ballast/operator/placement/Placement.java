package dev.ballast.operator.placement;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The outcome of placing a gang: every worker's node, or why the gang cannot run now. */
public sealed interface Placement {

  /** How tightly the placed workers sit, tightest first. */
  enum Locality { ONE_NODE, ONE_DOMAIN, ONE_RACK, SEVERAL_RACKS }

  /**
   * Workers in node-rank order (index i has nodeRank i): workers on one node are consecutive, then
   * nodes of one domain, then of one rack.
   */
  record Placed(List<WorkerSlot> workers, Resources perWorker, Locality locality) implements Placement {
    public Placed {
      workers = List.copyOf(workers);
    }

    public int gpusPerWorker() {
      return (int) perWorker.get(Resources.GPU);
    }

    /** GPUs this placement promises per node. */
    public Map<String, Integer> gpusByNode() {
      Map<String, Integer> gpus = new TreeMap<>();
      for (WorkerSlot w : workers) gpus.merge(w.node(), gpusPerWorker(), Integer::sum);
      return gpus;
    }

    /** Resources this placement promises per node: what a caller adds to the used map before placing another job. */
    public Map<String, Resources> requestsByNode() {
      Map<String, Resources> requests = new TreeMap<>();
      for (WorkerSlot w : workers) requests.merge(w.node(), perWorker, Resources::plus);
      return requests;
    }
  }

  /**
   * Fewer than workers.min workers fit; {@code reason} says why, in numbers, for a cluster admin;
   * {@code shortResource} names the resource that keeps the gang out ({@link Resources#GPU} unless nodes with
   * enough free GPUs lack another one).
   */
  record Unplaceable(String reason, String shortResource) implements Placement {}
}
