package dev.ballast.operator.jmh;

import dev.ballast.operator.placement.GangPlacer;
import dev.ballast.operator.placement.GangRequest;
import dev.ballast.operator.placement.GpuNode;
import dev.ballast.operator.placement.Placement;
import dev.ballast.operator.placement.Resources;
import dev.ballast.operator.placement.Taint;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
 * One gang placement on a 1,000-node / 8,000-GPU cluster: 25 racks × 40 nodes, NVLink domains of 8
 * nodes, 8 GPUs per node, about a third of the nodes partly or fully used, 1% cordoned, 1% tainted,
 * nodes listed in random order. The job asks for 64 workers (min 32) of {@code gpusPerWorker} GPUs.
 * Run: bin/ballast jmh operator -f 1 -wi 3 -i 5 GangPlacer
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class GangPlacerBenchmark {
  private static final int RACKS = 25;
  private static final int NODES_PER_RACK = 40;
  private static final int NODES_PER_DOMAIN = 8;
  private static final int GPUS_PER_NODE = 8;

  @Param({"8", "4"})
  public int gpusPerWorker;

  private List<GpuNode> nodes;
  private Map<String, Resources> used;
  private GangRequest request;

  @Setup
  public void buildCluster() {
    Random random = new Random(42);
    nodes = new ArrayList<>();
    used = new HashMap<>();
    Taint reserved = new Taint("ballast.dev/reserved", "inference", Taint.NO_SCHEDULE);
    for (int r = 0; r < RACKS; r++) {
      for (int i = 0; i < NODES_PER_RACK; i++) {
        String name = String.format("gpu-r%02d-n%02d", r, i);
        String domain = String.format("clique-r%02d-%d", r, i / NODES_PER_DOMAIN);
        boolean cordoned = random.nextInt(100) == 0;
        List<Taint> taints = random.nextInt(100) == 0 ? List.of(reserved) : List.of();
        nodes.add(new GpuNode(name, GPUS_PER_NODE, true, cordoned, taints, domain, String.format("rack-%02d", r)));
        if (random.nextInt(3) == 0) used.put(name, Resources.gpus(1 + random.nextInt(GPUS_PER_NODE)));
      }
    }
    Collections.shuffle(nodes, random);
    request = new GangRequest(32, 64, gpusPerWorker, List.of());
    if (!(GangPlacer.place(nodes, used, request) instanceof Placement.Placed placed) || placed.workers().size() != 64) {
      throw new IllegalStateException("the benchmark cluster should fit 64 workers");
    }
  }

  @Benchmark
  public Placement place() {
    return GangPlacer.place(nodes, used, request);
  }
}
