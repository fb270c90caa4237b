package dev.ballast.e2e.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.GpuNodes;
import dev.ballast.e2e.support.Jobs;
import dev.ballast.e2e.support.WorldInvariants;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;

/**
 * What each elastic test has: its class's namespace of jobs, a node pool of its own, and the world
 * invariants watched from its start to its end.
 */
abstract class ElasticScenario {
  static final Duration WAIT = Duration.ofMinutes(4);
  final BallastEnvironment env;
  final Jobs jobs;
  final WorldInvariants invariants;
  GpuNodes pool;

  ElasticScenario(BallastEnvironment env) {
    this.env = env;
    this.jobs = new Jobs(env, getClass());
    this.invariants = new WorldInvariants(env, jobs.namespace()).start();
  }

  @AfterEach
  void cleanUp() {
    invariants.close();
    jobs.deleteAll();
    if (pool != null) pool.deleteAll();
  }

  /** Waits until the job runs world {@code generation} with {@code workers} workers, all Running; its nodes. */
  List<String> awaitWorld(String job, long generation, int workers) {
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(jobs.phase(job)).isEqualTo("Running");
      assertThat(jobs.worldGeneration(job)).isEqualTo(generation);
      assertThat(jobs.worldNodes(job)).hasSize(workers);
      assertThat(jobs.status(job).get("readyWorkers")).isEqualTo(workers);
    });
    return jobs.worldNodes(job);
  }
}
