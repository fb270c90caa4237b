package dev.ballast.operator.placement;

/**
 * Counts the nodes excluded from a placement by cause and turns the counts into the sentence a
 * cluster admin reads when a gang does not fit.
 */
final class ExclusionTally {
  private final int[] counts = new int[Exclusion.values().length];
  private int freeGpusOnBusyNodes;
  private int freeGpusSchedulable;
  private String taintExampleNode;
  private Taint taintExample;

  /** Records a node that can host at least one worker. */
  void host(int freeGpus) {
    freeGpusSchedulable += freeGpus;
  }

  /** Records a node excluded for {@code cause}. */
  void exclude(GpuNode node, Exclusion cause, int freeGpus, GangRequest request) {
    counts[cause.ordinal()]++;
    if (cause == Exclusion.NO_FREE_GPUS || cause == Exclusion.TOO_FEW_GPUS) freeGpusSchedulable += freeGpus;
    if (cause == Exclusion.NO_FREE_GPUS) freeGpusOnBusyNodes += freeGpus;
    // The example taint comes from the first node by name, so the reason does not depend on list order.
    if (cause == Exclusion.UNTOLERATED_TAINT
        && (taintExampleNode == null || node.name().compareTo(taintExampleNode) < 0)) {
      taintExampleNode = node.name();
      taintExample = request.untoleratedTaint(node);
    }
  }

  /**
   * E.g. "needs 4 workers × 8 GPUs (workers.min 4, workers.max 8) but only 2 fit: 2 of 9 GPU nodes can
   * host a worker; excluded: 1 node is not Ready, 1 node is cordoned, 2 nodes have untolerated taints
   * (e.g. gpu=reserved:NoSchedule on node-7), 3 nodes lack 8 free GPUs (10 GPUs free on them in all)".
   */
  String explain(GangRequest request, int totalNodes, int hostNodes, long fittingWorkers) {
    int g = request.gpusPerWorker();
    StringBuilder s = new StringBuilder()
        .append("needs ").append(request.minWorkers()).append(request.minWorkers() == 1 ? " worker" : " workers")
        .append(" × ").append(g).append(g == 1 ? " GPU" : " GPUs")
        .append(" (workers.min ").append(request.minWorkers()).append(", workers.max ").append(request.maxWorkers())
        .append(") but ").append(fittingWorkers == 0 ? "none fits"
            : "only " + fittingWorkers + (fittingWorkers == 1 ? " fits" : " fit"));
    if (totalNodes == 0) return s.append(": the cluster has no GPU nodes").toString();
    s.append(": ").append(hostNodes).append(" of ").append(totalNodes).append(" GPU nodes can host a worker");
    if (hostNodes == totalNodes) return s.toString();
    s.append("; excluded: ");
    String sep = "";
    for (Exclusion cause : Exclusion.values()) {
      int n = counts[cause.ordinal()];
      if (n == 0) continue;
      s.append(sep).append(n).append(n == 1 ? " node " : " nodes ").append(phrase(cause, n == 1, g));
      sep = ", ";
    }
    if (freeGpusSchedulable >= (long) request.minWorkers() * g) {
      s.append(" — ").append(freeGpusSchedulable)
          .append(" GPUs are free on schedulable nodes, enough in all but not in blocks of ").append(g)
          .append(" on one node (fragmented)");
    }
    return s.toString();
  }

  private String phrase(Exclusion cause, boolean one, int g) {
    return switch (cause) {
      case GONE -> one ? "is gone" : "are gone";
      case NOT_READY -> one ? "is not Ready" : "are not Ready";
      case CORDONED -> one ? "is cordoned" : "are cordoned";
      case UNTOLERATED_TAINT -> (one ? "has an untolerated taint" : "have untolerated taints")
          + " (e.g. " + taintExample + " on " + taintExampleNode + ")";
      case TOO_FEW_GPUS -> (one ? "has" : "have") + " fewer than " + g + " GPUs in all";
      case NO_FREE_GPUS -> (one ? "lacks " : "lack ") + g + " free GPUs (" + freeGpusOnBusyNodes
          + " GPUs free on " + (one ? "it" : "them in all") + ")";
    };
  }
}
