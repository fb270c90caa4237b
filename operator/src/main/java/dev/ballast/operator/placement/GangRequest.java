package dev.ballast.operator.placement;

import java.util.List;

/**
 * What a job asks for: between {@code minWorkers} and {@code maxWorkers} workers, each needing
 * {@code gpusPerWorker} GPUs on one node, with the tolerations of its pod template.
 */
public record GangRequest(int minWorkers, int maxWorkers, int gpusPerWorker, List<Toleration> tolerations) {

  public GangRequest {
    if (minWorkers < 1) throw new IllegalArgumentException("workers.min must be >= 1, got " + minWorkers);
    if (maxWorkers < minWorkers) {
      throw new IllegalArgumentException("workers.max (" + maxWorkers + ") must be >= workers.min (" + minWorkers + ")");
    }
    if (gpusPerWorker < 1) throw new IllegalArgumentException("gpusPerWorker must be >= 1, got " + gpusPerWorker);
    tolerations = tolerations == null ? List.of() : List.copyOf(tolerations);
  }

  /** The first taint of {@code node} that keeps this job's pods off it, or null if there is none. */
  public Taint untoleratedTaint(GpuNode node) {
    for (Taint taint : node.taints()) {
      if (taint.blocksScheduling() && tolerations.stream().noneMatch(t -> t.tolerates(taint))) return taint;
    }
    return null;
  }
}
