package dev.ballast.e2e.scale;

import dev.ballast.e2e.support.BallastEnvironment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code bin/ballast scale [--small] [--keep]}: the real control plane with KWOK playing 1,000 GPU nodes (8 GPUs each,
 * 4 racks, NVLink domains of 8 nodes) and every pod's lifecycle, the chart and the operator as in the e2e suite, and
 * 200 TrainingJobs of mixed sizes applied at once (docs/BENCHMARKS.md, "Scale"). {@code --small}: the CI size (50
 * nodes, 10 jobs). Prints the table BENCHMARKS.md records; the cluster is deleted unless {@code --keep}.
 */
public final class ScaleBench {
  static final String CLUSTER = "ballast-scale";

  private ScaleBench() {}

  public static void main(String[] args) throws Exception {
    ScaleSpec spec = ScaleSpec.full();
    boolean keep = false;
    for (String arg : args) {
      switch (arg) {
        case "--small" -> spec = ScaleSpec.small();
        case "--keep" -> keep = true;
        default -> {
          System.err.println("usage: bin/ballast scale [--small] [--keep]   (unknown argument '" + arg + "')");
          System.exit(2);
        }
      }
    }
    Path root = BallastEnvironment.repositoryRoot();
    Path logs = root.resolve("e2e/target/scale-logs");
    BallastEnvironment env = new BallastEnvironment(root, CLUSTER, logs).simulatedPods(spec.nodeLayout());
    boolean deleteCluster = !keep;
    Runtime.getRuntime().addShutdownHook(new Thread(() -> env.stop(deleteCluster)));
    env.start();
    ScaleResult result = new ScaleRun(env, spec, Duration.ofMinutes(20)).run();
    String table = result.table();
    Files.writeString(logs.resolve("result.md"), table);
    System.out.println();
    System.out.println(table);
    System.exit(0);
  }
}
