package dev.ballast.e2e.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.GpuNodes;
import dev.ballast.e2e.support.Jobs;
import dev.ballast.e2e.support.WorldInvariants;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The operator process killed at 20 or more points while it admits and resizes two competing jobs, and
 * restarted each time as a new leader (a 4 s Lease; shorter ones are lost to CPU starvation on a shared
 * machine). The points are counted mutating API requests, drawn from a printed seed (rerun one with
 * -Dballast.chaos.seed=N), where the operator's test hook halts the process as a SIGKILL would. Between
 * kills the test changes the cluster (nodes added and deleted, spec.workers edited). The world invariants
 * ({@link WorldInvariants}: no duplicate rank, no repeated or forgotten generation, no GPU promised twice,
 * no world below min) are checked at every change throughout, and after the last kill a plain operator
 * brings both jobs back to Running worlds.
 */
@E2eTest
@Tag("elastic") // the elastic scenarios alone: -Dballast.e2e.groups=elastic (e2e/README.md)
class ChaosTest {
  static final int KILLS = 20;
  /** Most rounds change the cluster by one step (a node, a workers edit): 10 to 25 writes; fewer draws kill more rounds. */
  static final int MAX_WRITES = 16;
  static final Duration ROUND = Duration.ofSeconds(45);
  static final Duration QUIET = Duration.ofSeconds(5);
  /**
   * restartLimit: 100, as the test deletes the jobs' nodes as often as its seed draws (up to 80 rounds): a job whose
   * restarts run out fails by design, which is not what this test asks (seed 5010235004346591836 deleted a node of
   * alpha's world six times, and alpha failed with RestartLimitExceeded after its default 5).
   */
  static final String FAST = "elastic: {cooldownSeconds: 0, checkpointTimeoutSeconds: 10}\nrecovery: {backoffSeconds: 1}"
      + "\nrestartLimit: 100";

  final BallastEnvironment env;
  final Jobs jobs;

  ChaosTest(BallastEnvironment env) {
    this.env = env;
    this.jobs = new Jobs(env, ChaosTest.class);
  }

  @Test
  void theOperatorKilledAtAnyWriteLosesNothing() throws InterruptedException {
    long seed = Long.getLong("ballast.chaos.seed", new Random().nextLong());
    System.out.println("ChaosTest seed " + seed + " (rerun with -Dballast.chaos.seed=" + seed + ")");
    Random random = new Random(seed);
    GpuNodes pool = new GpuNodes(env, "chaos", 25);
    pool.add(6);
    // Every change alters what the operator must do (a workers edit flips the job between 2..2 and 2..4, never
    // re-applying the range it has), so a round's drawn write count is reached often enough to collect KILLS points.
    Map<String, Integer> maxWorkers = new java.util.HashMap<>(Map.of("alpha", 4, "beta", 2));
    List<Runnable> changes = List.of(
        () -> pool.add(1),
        () -> pool.add(2),
        () -> deleteANodeOf("alpha", pool),
        () -> deleteANodeOf("beta", pool),
        () -> flipWorkers("alpha", maxWorkers),
        () -> flipWorkers("beta", maxWorkers));
    Map<String, String> leader = Map.of("BALLAST_LEASE_NAMESPACE", BallastEnvironment.NAMESPACE,
        "BALLAST_LEASE_DURATION_SECONDS", "4");
    List<String> points = new ArrayList<>();
    try (WorldInvariants invariants = new WorldInvariants(env, jobs.namespace()).start()) {
      env.killOperator();
      int round = 0;
      while (points.size() < KILLS && round < 4 * KILLS) {
        round++;
        int writes = 1 + random.nextInt(MAX_WRITES);
        Map<String, String> chaos = new java.util.HashMap<>(leader);
        chaos.put("BALLAST_CHAOS_EXIT_AFTER_WRITES", Integer.toString(writes));
        env.startOperator(chaos);
        String change = "";
        if (round == 1) {
          jobs.apply(Jobs.elasticManifest("alpha", 2, 4, pool, "", FAST));
          jobs.apply(Jobs.elasticManifest("beta", 2, 2, pool, "", FAST));
          change = "created alpha (2..4) and beta (2..2)";
        } else if (quiet(invariants)) {
          int pick = random.nextInt(changes.size());
          changes.get(pick).run();
          change = "change " + pick;
        }
        OptionalInt exit = awaitExitOrQuiet(invariants);
        if (exit.isPresent()) {
          assertThat(exit.getAsInt()).as("the operator exits only by its chaos hook").isEqualTo(BallastEnvironment.CHAOS_EXIT);
          points.add("round " + round + ": after " + writes + " writes" + (change.isEmpty() ? "" : ", " + change));
        } else {
          env.killOperator(); // it settled before its Nth write: killed at rest, which must be just as safe
        }
        assertThat(invariants.violations()).as("invariants after round %d (seed %d)", round, seed).isEmpty();
      }
      System.out.println("ChaosTest: the operator was killed at " + points.size() + " points:\n  "
          + String.join("\n  ", points));
      assertThat(points).as("kill points in %d rounds (seed %d)", round, seed).hasSizeGreaterThanOrEqualTo(KILLS);

      env.startOperator(Map.of());
      await().atMost(Duration.ofMinutes(4)).untilAsserted(() -> {
        for (String job : List.of("alpha", "beta")) {
          assertThat(jobs.phase(job)).as(() -> job + " (invariants broken so far: " + invariants.violations() + ")")
              .isEqualTo("Running");
          long generation = jobs.worldGeneration(job);
          assertThat(jobs.workers(job)).as("the pods of %s: only its world %d", job, generation)
              .filteredOn(p -> p.getMetadata().getDeletionTimestamp() == null)
              .allSatisfy(p -> assertThat(p.getMetadata().getName()).contains("-g" + generation + "-"))
              .hasSize(jobs.worldNodes(job).size());
        }
      });
      assertThat(invariants.violations()).as("invariants (seed %d, %d checks)", seed, invariants.checks()).isEmpty();
    } finally {
      env.killOperator();
      jobs.deleteAll();
      pool.deleteAll();
      env.startOperator(Map.of());
    }
  }

  private boolean quiet(WorldInvariants invariants) {
    return invariants.lastPodChange().plus(QUIET).isBefore(Instant.now());
  }

  /** The operator's exit status if the chaos hook ends it this round, or empty once the pods have been quiet. */
  private OptionalInt awaitExitOrQuiet(WorldInvariants invariants) throws InterruptedException {
    Instant deadline = Instant.now().plus(ROUND);
    Instant started = Instant.now();
    while (Instant.now().isBefore(deadline)) {
      OptionalInt exit = env.awaitOperatorExit(Duration.ofSeconds(1));
      if (exit.isPresent()) return exit;
      if (started.plus(QUIET).isBefore(Instant.now()) && quiet(invariants)) return OptionalInt.empty();
    }
    return OptionalInt.empty();
  }

  private void flipWorkers(String job, Map<String, Integer> maxWorkers) {
    int max = maxWorkers.get(job) == 4 ? 2 : 4;
    maxWorkers.put(job, max);
    jobs.patch(job, "{\"spec\":{\"workers\":{\"min\":2,\"max\":" + max + "}}}");
  }

  /**
   * Deletes the last node of the job's world that still exists (status.world may name one deleted a round
   * ago while the job restarts), unless that would leave less than both jobs' workers.min.
   */
  private void deleteANodeOf(String job, GpuNodes pool) {
    List<String> existing = pool.nodes();
    List<String> nodes = jobs.worldNodes(job).stream().filter(existing::contains).toList();
    if (existing.size() <= 4) {
      pool.add(1);
    } else if (!nodes.isEmpty()) {
      pool.delete(nodes.get(nodes.size() - 1));
    }
  }
}
