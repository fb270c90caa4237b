package dev.ballast.operator.placement;

/**
 * Why a node cannot host a worker of a job, in the order they are checked: a node is counted under
 * the first cause that applies, so the counts in a reason add up to the number of excluded nodes.
 */
public enum Exclusion {
  /** Only from {@link GangPlacer#revalidate}: the node is no longer in the list of GPU nodes. */
  GONE,
  NOT_READY,
  /** spec.unschedulable (kubectl cordon). */
  CORDONED,
  /** A NoSchedule or NoExecute taint that none of the pod's tolerations matches. */
  UNTOLERATED_TAINT,
  /** Fewer allocatable GPUs than one worker needs, even when idle. */
  TOO_FEW_GPUS,
  /** Enough GPUs in all, but fewer than one worker needs are free. */
  NO_FREE_GPUS;

  /** The first cause that keeps a worker of {@code request} off {@code node}, or null if it can host one. */
  static Exclusion of(GpuNode node, int freeGpus, GangRequest request) {
    if (!node.ready()) return NOT_READY;
    if (node.unschedulable()) return CORDONED;
    if (request.untoleratedTaint(node) != null) return UNTOLERATED_TAINT;
    if (node.allocatableGpus() < request.gpusPerWorker()) return TOO_FEW_GPUS;
    if (freeGpus < request.gpusPerWorker()) return NO_FREE_GPUS;
    return null;
  }
}
