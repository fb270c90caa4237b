package dev.ballast.operator.placement;

import java.util.Map;
import java.util.TreeMap;

/**
 * Counts the nodes excluded from a placement by cause and turns the counts into the sentence a
 * cluster admin reads when a gang does not fit. Nodes short of a resource other than GPUs are
 * counted per resource, with the most of it one of them has, so the reason says which request is
 * too large and by how much.
 */
final class ExclusionTally {
  private final int[] counts = new int[Exclusion.values().length];
  private final Map<String, Shortfall> tooSmall = new TreeMap<>();
  private final Map<String, Shortfall> notFree = new TreeMap<>();
  /** Per resource, the hosting nodes where it, not their free GPUs, bounds the workers they take. */
  private final Map<String, Integer> limitedBy = new TreeMap<>();
  private int freeGpusOnBusyNodes;
  private int freeGpusSchedulable;
  /** Free GPUs on nodes kept out by another resource (too small, or not enough of it free). */
  private int freeGpusShortOfOthers;
  private String taintExampleNode;
  private Taint taintExample;

  /** Nodes short of one resource: how many, and the most of it one of them has. */
  private static final class Shortfall {
    int nodes;
    long most;
  }

  /** Records a node that can host at least one worker, and which resource bounds how many if not its GPUs. */
  void host(Resources free, GangRequest request) {
    freeGpusSchedulable += (int) free.get(Resources.GPU);
    Resources perWorker = request.perWorker();
    int workers = free.fits(perWorker);
    if (free.get(Resources.GPU) / perWorker.get(Resources.GPU) == workers) return;
    for (Map.Entry<String, Long> e : perWorker.amounts().entrySet()) {
      if (free.get(e.getKey()) / e.getValue() == workers) {
        limitedBy.merge(e.getKey(), 1, Integer::sum);
        return;
      }
    }
  }

  /** Records a node excluded for {@code cause}. */
  void exclude(GpuNode node, Exclusion cause, Resources free, GangRequest request) {
    counts[cause.ordinal()]++;
    int freeGpus = (int) free.get(Resources.GPU);
    if (cause == Exclusion.NO_FREE_GPUS || cause == Exclusion.TOO_FEW_GPUS) freeGpusSchedulable += freeGpus;
    if (cause == Exclusion.NO_FREE_GPUS) freeGpusOnBusyNodes += freeGpus;
    if (cause == Exclusion.TOO_SMALL || cause == Exclusion.NO_FREE_RESOURCES) freeGpusShortOfOthers += freeGpus;
    if (cause == Exclusion.TOO_SMALL) record(tooSmall, node.allocatable(), request);
    if (cause == Exclusion.NO_FREE_RESOURCES) record(notFree, free, request);
    // The example taint comes from the first node by name, so the reason does not depend on list order.
    if (cause == Exclusion.UNTOLERATED_TAINT
        && (taintExampleNode == null || node.name().compareTo(taintExampleNode) < 0)) {
      taintExampleNode = node.name();
      taintExample = request.untoleratedTaint(node);
    }
  }

  private static void record(Map<String, Shortfall> byResource, Resources available, GangRequest request) {
    String resource = available.firstShort(request.perWorker());
    Shortfall s = byResource.computeIfAbsent(resource, r -> new Shortfall());
    s.nodes++;
    s.most = Math.max(s.most, available.get(resource));
  }

  /**
   * E.g. "needs 4 workers × 8 GPUs (workers.min 4, workers.max 8) but only 2 fit: 2 of 9 GPU nodes can
   * host a worker; excluded: 1 node is not Ready, 1 node is cordoned, 2 nodes have untolerated taints
   * (e.g. gpu=reserved:NoSchedule on node-7), 3 nodes lack 8 free GPUs (10 GPUs free on them in all)";
   * a node short of another resource reads e.g. "2 nodes lack 100 cpu free per worker (at most 95.9 cpu
   * free on one)".
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
    limitedBy.forEach((resource, nodes) -> s.append("; on ").append(nodes).append(" of them")
        .append(" free ").append(resource).append(" allows fewer workers than free GPUs (")
        .append(Resources.describe(resource, request.perWorker().get(resource))).append(" per worker)"));
    if (hostNodes == totalNodes) return s.toString();
    s.append("; excluded: ");
    String sep = "";
    for (Exclusion cause : Exclusion.values()) {
      int n = counts[cause.ordinal()];
      if (n == 0) continue;
      if (cause == Exclusion.TOO_SMALL || cause == Exclusion.NO_FREE_RESOURCES) {
        for (Map.Entry<String, Shortfall> e : (cause == Exclusion.TOO_SMALL ? tooSmall : notFree).entrySet()) {
          s.append(sep).append(shortfall(cause, e.getKey(), e.getValue(), request));
          sep = ", ";
        }
        continue;
      }
      s.append(sep).append(n).append(n == 1 ? " node " : " nodes ").append(phrase(cause, n == 1, g));
      sep = ", ";
    }
    boolean gpusDecide = limitedBy.isEmpty() && counts[Exclusion.NO_FREE_RESOURCES.ordinal()] == 0
        && counts[Exclusion.TOO_SMALL.ordinal()] == 0;
    if (gpusDecide && freeGpusSchedulable >= (long) request.minWorkers() * g) {
      s.append(" — ").append(freeGpusSchedulable)
          .append(" GPUs are free on schedulable nodes, enough in all but not in blocks of ").append(g)
          .append(" on one node (fragmented)");
    }
    return s.toString();
  }

  /**
   * The resource that keeps the gang out: when the free GPUs of the nodes that can host a worker and of those
   * kept out by another resource would hold workers.min workers, the other resource that bounds or excludes
   * the most nodes (by name on ties); otherwise GPUs.
   */
  String shortResource(GangRequest request) {
    long needed = (long) request.minWorkers() * request.gpusPerWorker();
    if (freeGpusSchedulable + freeGpusShortOfOthers < needed) return Resources.GPU;
    Map<String, Integer> nodes = new TreeMap<>(limitedBy);
    tooSmall.forEach((resource, s) -> nodes.merge(resource, s.nodes, Integer::sum));
    notFree.forEach((resource, s) -> nodes.merge(resource, s.nodes, Integer::sum));
    String scarcest = Resources.GPU;
    int most = 0;
    for (Map.Entry<String, Integer> e : nodes.entrySet()) {
      if (e.getValue() > most) {
        scarcest = e.getKey();
        most = e.getValue();
      }
    }
    return scarcest;
  }

  private static String shortfall(Exclusion cause, String resource, Shortfall s, GangRequest request) {
    boolean one = s.nodes == 1;
    String need = Resources.describe(resource, request.perWorker().get(resource));
    String most = Resources.describe(resource, s.most);
    return s.nodes + (one ? " node " : " nodes ") + (cause == Exclusion.TOO_SMALL
        ? (one ? "has" : "have") + " less than " + need + " allocatable, what one worker requests (" + most
            + (one ? ")" : " on the largest)")
        : (one ? "lacks " : "lack ") + need + " free for one worker (" + most + " free"
            + (one ? ")" : " on the one with most)"));
  }

  private String phrase(Exclusion cause, boolean one, int g) {
    return switch (cause) {
      case GONE -> one ? "is gone" : "are gone";
      case NOT_READY -> one ? "is not Ready" : "are not Ready";
      case CORDONED -> one ? "is cordoned" : "are cordoned";
      case NOT_SELECTED -> (one ? "does" : "do") + " not match the template's nodeSelector or required node affinity";
      case UNTOLERATED_TAINT -> (one ? "has an untolerated taint" : "have untolerated taints")
          + " (e.g. " + taintExample + " on " + taintExampleNode + ")";
      case TOO_FEW_GPUS -> (one ? "has" : "have") + " fewer than " + g + " GPUs in all";
      case NO_FREE_GPUS -> (one ? "lacks " : "lack ") + g + " free GPUs (" + freeGpusOnBusyNodes
          + " GPUs free on " + (one ? "it" : "them in all") + ")";
      case TOO_SMALL, NO_FREE_RESOURCES -> throw new IllegalStateException(cause + " is phrased per resource");
    };
  }
}
