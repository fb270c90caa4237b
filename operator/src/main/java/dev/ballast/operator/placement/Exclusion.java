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
  /** The pod template's nodeSelector or required node affinity does not match the node. */
  NOT_SELECTED,
  /** A NoSchedule or NoExecute taint that none of the pod's tolerations matches. */
  UNTOLERATED_TAINT,
  /** Fewer allocatable GPUs than one worker needs, even when idle. */
  TOO_FEW_GPUS,
  /** Less of another resource (cpu, memory, pods, ...) allocatable than one worker requests, even when idle. */
  TOO_SMALL,
  /** Enough GPUs in all, but fewer than one worker needs are free. */
  NO_FREE_GPUS,
  /** Enough of every resource in all, but less of one than a worker requests is free (other pods request it). */
  NO_FREE_RESOURCES;

  /** The first cause that keeps a worker of {@code request} off {@code node}, or null if it can host one. */
  static Exclusion of(GpuNode node, Resources free, GangRequest request) {
    if (!node.ready()) return NOT_READY;
    if (node.unschedulable()) return CORDONED;
    if (!request.selection().matches(node)) return NOT_SELECTED;
    if (request.untoleratedTaint(node) != null) return UNTOLERATED_TAINT;
    String tooSmall = node.allocatable().firstShort(request.perWorker());
    if (tooSmall != null) return Resources.GPU.equals(tooSmall) ? TOO_FEW_GPUS : TOO_SMALL;
    String notFree = free.firstShort(request.perWorker());
    if (notFree != null) return Resources.GPU.equals(notFree) ? NO_FREE_GPUS : NO_FREE_RESOURCES;
    return null;
  }
}
