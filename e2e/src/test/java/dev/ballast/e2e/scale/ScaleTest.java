package dev.ballast.e2e.scale;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.e2e.support.BallastEnvironment;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The scale benchmark in small (50 nodes, 10 jobs), on a cluster of its own where KWOK plays every pod: every job that
 * fits runs, the one that cannot holds nothing, and a pending job's retries list nothing from the API server (the
 * figures of the full run are in docs/BENCHMARKS.md, "Scale").
 */
class ScaleTest {
  static BallastEnvironment env;

  @BeforeAll
  static void start() throws Exception {
    Path root = BallastEnvironment.repositoryRoot();
    env = new BallastEnvironment(root, "ballast-scale-ci", root.resolve("e2e/target/scale-ci-logs"))
        .simulatedPods(ScaleSpec.small().nodeLayout()).start();
  }

  @AfterAll
  static void stop() {
    if (env != null) env.stop(!Boolean.getBoolean("ballast.e2e.keep"));
  }

  @Test
  void everyJobThatFitsRunsAndPendingRetriesListNothing() throws Exception {
    ScaleSpec spec = ScaleSpec.small();
    ScaleResult result = new ScaleRun(env, spec, Duration.ofMinutes(2)).run();
    System.out.println(result.table());

    assertThat(result.running()).isEqualTo(spec.fitting().size());
    assertThat(result.admissionMs()).as("one logged admission per fitting job").hasSize(spec.fitting().size());
    String tooBig = spec.jobs().get(spec.jobs().size() - 1).name();
    assertThat(env.admin().pods().inNamespace(ScaleRun.NAMESPACE).withLabel("ballast.dev/job", tooBig).list()
        .getItems()).as("the job that cannot fit holds nothing").isEmpty();
    assertThat(result.unschedulableAttempts()).as("it kept retrying").isPositive();
    // the cluster cache lists nodes, pods and jobs once, at the first admission; no retry lists anything again
    assertThat(result.requestsByVerb().getOrDefault("list", 0L)).isLessThanOrEqualTo(3);
    assertThat(result.heapPeakMiB()).isLessThan(512);
  }
}
