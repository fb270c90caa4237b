package dev.ballast.operator.jmh;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.admission.AdmissionQueue;
import dev.ballast.operator.admission.GangAdmission;
import dev.ballast.operator.api.TrainingJobSpec;
import dev.ballast.operator.observe.ClusterCapacity;
import dev.ballast.operator.placement.GpuNode;
import dev.ballast.operator.placement.Resources;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One admission in turn (docs/elastic.md, "Admission order") on a busy 1,000-node / 8,000-GPU cluster: 25 racks × 40
 * nodes, NVLink domains of 8, 85 % of the nodes taken whole, nodes in random order; {@code ahead} jobs wait ahead of
 * the one admitted, each for 2 to 16 whole nodes (the first of them fit the 150 free nodes and take them in turn, the
 * rest do not), and the job admitted asks for 4 nodes. The worst case for the queue: every admission of a job that
 * fits places the worlds of all the jobs ahead of it first.
 * Run: bin/ballast jmh operator -f 1 -wi 3 -i 5 -w 2s -r 2s AdmissionQueue
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class AdmissionQueueBenchmark {
  private static final int RACKS = 25;
  private static final int NODES_PER_RACK = 40;
  private static final int NODES_PER_DOMAIN = 8;
  private static final int GPUS_PER_NODE = 8;
  /** Room for everything else a worker pod asks for (cpu, memory, the sidecar's). */
  private static final Resources ALLOCATABLE = new Resources(Map.of(Resources.GPU, (long) GPUS_PER_NODE,
      Resources.CPU, 1_000_000L, Resources.MEMORY, 1L << 50, Resources.EPHEMERAL_STORAGE, 1L << 50,
      Resources.PODS, 110L));

  @Param({"0", "10", "100"})
  public int ahead;

  private ClusterCapacity capacity;
  private List<AdmissionQueue.Ahead> waiting;
  private TrainingJobSpec admitted;

  @Setup
  public void buildCluster() {
    Random random = new Random(42);
    List<GpuNode> nodes = new ArrayList<>();
    Map<String, Resources> used = new HashMap<>();
    for (int r = 0; r < RACKS; r++) {
      for (int i = 0; i < NODES_PER_RACK; i++) {
        String name = String.format("gpu-r%02d-n%02d", r, i);
        nodes.add(new GpuNode(name, ALLOCATABLE, true, false, List.of(),
            String.format("clique-r%02d-%d", r, i / NODES_PER_DOMAIN), String.format("rack-%02d", r), Map.of()));
      }
    }
    Collections.shuffle(nodes, random);
    for (int i = 0; i < 850; i++) used.put(nodes.get(i).name(), Resources.gpus(GPUS_PER_NODE));
    capacity = new ClusterCapacity(nodes, used);
    waiting = new ArrayList<>();
    for (int i = 0; i < ahead; i++) {
      int size = 2 + random.nextInt(15);
      waiting.add(new AdmissionQueue.Ahead("bench/w" + i, 0, TestJobs.job("w" + i, size, size, 8).getSpec(),
          Set.of()));
    }
    admitted = TestJobs.job("admitted", 4, 4, 8).getSpec();
    if (!(GangAdmission.choose(admitted, 4, capacity, 1, Set.of()) instanceof GangAdmission.Result.Admitted)) {
      throw new IllegalStateException("the admitted job should fit the cluster alone");
    }
  }

  @Benchmark
  public GangAdmission.Result admitInTurn() {
    return GangAdmission.choose(admitted, 4, capacity, 1, Set.of(), waiting);
  }
}
