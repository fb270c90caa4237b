package dev.ballast.operator.placement;

import java.util.List;

/**
 * What a job asks for: between {@code minWorkers} and {@code maxWorkers} workers on nodes its
 * {@code selection} allows and its {@code tolerations} admit, each needing {@code perWorker} on one
 * node: the worker pod's effective request as the scheduler computes it (every container, the
 * Ballast sidecar, init containers), at least one GPU, plus one pod.
 */
public record GangRequest(int minWorkers, int maxWorkers, Resources perWorker, List<Toleration> tolerations,
                          NodeSelection selection) {

  public GangRequest {
    if (minWorkers < 1) throw new IllegalArgumentException("workers.min must be >= 1, got " + minWorkers);
    if (maxWorkers < minWorkers) {
      throw new IllegalArgumentException("workers.max (" + maxWorkers + ") must be >= workers.min (" + minWorkers + ")");
    }
    if (perWorker.get(Resources.GPU) < 1) {
      throw new IllegalArgumentException("a worker must request at least one GPU, got " + perWorker);
    }
    tolerations = tolerations == null ? List.of() : List.copyOf(tolerations);
    selection = selection == null ? NodeSelection.ANY : selection;
  }

  /** A request for GPUs only, on any node. */
  public GangRequest(int minWorkers, int maxWorkers, int gpusPerWorker, List<Toleration> tolerations) {
    this(minWorkers, maxWorkers, Resources.gpus(checkGpus(gpusPerWorker)), tolerations, NodeSelection.ANY);
  }

  private static int checkGpus(int gpusPerWorker) {
    if (gpusPerWorker < 1) throw new IllegalArgumentException("gpusPerWorker must be >= 1, got " + gpusPerWorker);
    return gpusPerWorker;
  }

  /** The same request for another range of workers. */
  public GangRequest withWorkers(int min, int max) {
    return new GangRequest(min, max, perWorker, tolerations, selection);
  }

  public int gpusPerWorker() {
    return (int) perWorker.get(Resources.GPU);
  }

  /** The first taint of {@code node} that keeps this job's pods off it, or null if there is none. */
  public Taint untoleratedTaint(GpuNode node) {
    for (Taint taint : node.taints()) {
      if (taint.blocksScheduling() && tolerations.stream().noneMatch(t -> t.tolerates(taint))) return taint;
    }
    return null;
  }
}
