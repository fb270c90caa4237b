package dev.ballast.e2e.scale;

import dev.ballast.e2e.support.Jobs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A scale run's cluster and workload: racks of 8-GPU KWOK nodes in NVLink domains, and TrainingJobs of mixed sizes
 * applied at once. Every job but the last fits together; the last asks for one node more than the cluster has, so it
 * stays Pending and retries for the whole run.
 *
 * @param jobs in apply order
 */
public record ScaleSpec(int racks, int nodesPerRack, int nodesPerNvlink, List<Job> jobs) {
  /** Node counts of the mix, repeated: mostly small jobs, some large, in whole nodes (41 nodes per 10 jobs). */
  private static final int[] MIX = {1, 2, 1, 4, 2, 8, 1, 4, 16, 2};

  /** A job of {@code workers} pods of {@code gpusPerWorker} GPUs each (min = max = workers). */
  public record Job(String name, int workers, int gpusPerWorker) {}

  /** The scale: 1,000 nodes (4 racks, NVLink domains of 8 nodes), 200 jobs. */
  public static ScaleSpec full() {
    return of(4, 250, 8, 200);
  }

  /** The CI version: 50 nodes, 10 jobs. */
  public static ScaleSpec small() {
    return of(2, 25, 8, 10);
  }

  public static ScaleSpec of(int racks, int nodesPerRack, int nodesPerNvlink, int jobCount) {
    int nodes = racks * nodesPerRack;
    List<Job> jobs = new ArrayList<>();
    int used = 0;
    for (int i = 0; i < jobCount - 1; i++) {
      int size = MIX[i % MIX.length];
      used += size;
      // every fifth job has two 4-GPU workers per node, so nodes are shared as well as taken whole
      jobs.add(i % 5 == 4 ? new Job(name(i), 2 * size, 4) : new Job(name(i), size, 8));
    }
    if (used > nodes) throw new IllegalArgumentException(jobCount + " jobs need " + used + " nodes; the cluster has " + nodes);
    jobs.add(new Job(name(jobCount - 1) + "-too-big", nodes + 1, 8));
    return new ScaleSpec(racks, nodesPerRack, nodesPerNvlink, List.copyOf(jobs));
  }

  private static String name(int i) {
    return String.format("s-%03d", i);
  }

  public int nodes() {
    return racks * nodesPerRack;
  }

  /** The jobs that fit: all but the last. */
  public List<Job> fitting() {
    return jobs.subList(0, jobs.size() - 1);
  }

  /** e2e/cluster/nodes.sh's variables for this layout. */
  public Map<String, String> nodeLayout() {
    return Map.of("BALLAST_RACKS", Integer.toString(racks), "BALLAST_NODES_PER_RACK", Integer.toString(nodesPerRack),
        "BALLAST_NODES_PER_NVLINK", Integer.toString(nodesPerNvlink), "BALLAST_GPUS_PER_NODE", "8");
  }

  /** The job's manifest, with the balancer off (KWOK plays the pods; nothing would run it). */
  public static String manifest(Job job) {
    return Jobs.manifest(job.name(), job.workers(), job.workers(), job.gpusPerWorker(), 8, "env: []")
        + "  balancer: {mode: \"off\"}\n";
  }
}
