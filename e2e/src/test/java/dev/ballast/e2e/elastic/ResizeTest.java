package dev.ballast.e2e.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.GpuNodes;
import dev.ballast.e2e.support.Jobs;
import dev.ballast.e2e.support.PriorityClasses;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Resize on the real control plane (docs/elastic.md): a running job grows towards workers.max when nodes
 * are added, shrinks to the largest valid size when one of its nodes is deleted, and follows edits of
 * spec.workers; each new world is a new generation, and the balancer plans for it. Each test has its own
 * node pool, so it alone decides the capacity its jobs see; the world invariants are watched throughout.
 */
@E2eTest
@Tag("elastic") // the elastic scenarios alone: -Dballast.e2e.groups=elastic (e2e/README.md)
class ResizeTest extends ElasticScenario {
  /** No cooldown between resizes and short voluntary stops, so a test sees several worlds quickly. */
  static final String FAST = "elastic: {cooldownSeconds: 0, checkpointTimeoutSeconds: 10}\nrecovery: {backoffSeconds: 1}";

  ResizeTest(BallastEnvironment env) {
    super(env);
  }

  /** Every rank of the world adopted a plan the balancer made for that world (not the initial ".0" layout). */
  void awaitPlanFor(String job, long generation) {
    await().atMost(WAIT).untilAsserted(() -> {
      @SuppressWarnings("unchecked")
      Map<String, Object> balancer = (Map<String, Object>) jobs.status(job).get("balancer");
      assertThat(balancer).as("status.balancer").isNotNull();
      assertThat((String) balancer.get("planVersion")).as("the plan every rank of world %d adopted", generation)
          .startsWith(generation + ".").doesNotEndWith(".0");
    });
  }

  @Test
  void growsWhenNodesAreAddedAndShrinksAndReplansWhenOneIsDeleted() {
    pool = new GpuNodes(env, "resize-grow", 20);
    pool.add(2);
    jobs.apply(Jobs.elasticManifest("grows", 2, 4, pool, "", FAST));
    awaitWorld("grows", 1, 2);

    List<String> added = pool.add(2);
    List<String> grown = awaitWorld("grows", 2, 4);
    assertThat(grown).containsAll(added);

    String lost = grown.get(grown.size() - 1);
    pool.delete(lost);
    // 3 nodes left, but a world holds whole groups of 2 workers: it shrinks to 2
    List<String> shrunk = awaitWorld("grows", 3, 2);
    assertThat(shrunk).doesNotContain(lost);
    assertThat(jobs.workers("grows")).as("no pod of the job is left on the deleted node")
        .noneMatch(p -> lost.equals(p.getSpec().getNodeName()));
    assertThat(invariants.violations()).isEmpty();
    awaitPlanFor("grows", 3); // the balancer re-plans for the shrunk world
  }

  /**
   * Reclaim (docs/elastic.md): a job grown to its maximum keeps its workers from a job waiting for its minimum while
   * it is not reclaimable, and, made reclaimable, while the waiting job's priority is lower than its own. Raised to
   * the same PriorityClass, the waiting job gets the workers above the other's minimum (a voluntary resize, reason
   * Reclaimed), and its world is admitted after the lender's next world. Each edit wakes the job it concerns at once.
   */
  @Test
  void aJobAboveItsMinimumGivesWorkersBackToAWaitingJobOfNoLowerPriority() {
    try (var classes = PriorityClasses.apply(env, "ballast-e2e")) { // -high, -low and -never
      pool = new GpuNodes(env, "resize-reclaim", 29);
      pool.add(4);
      jobs.apply(Jobs.elasticManifest("lender", 2, 4, pool, "priorityClassName: ballast-e2e-high\n", "",
          "elastic: {cooldownSeconds: 0, checkpointTimeoutSeconds: 10, reclaimable: false}"));
      awaitWorld("lender", 1, 4);
      jobs.apply(Jobs.elasticManifest("waiting", 2, 2, pool, "priorityClassName: ballast-e2e-low\n", "", FAST));
      awaitsRoom("waiting");
      keepsItsWorkers("not reclaimable");

      jobs.patch("lender", "{\"spec\":{\"elastic\":{\"reclaimable\":true}}}");
      keepsItsWorkers("the waiting job's priority is lower");

      Instant raised = Instant.now();
      jobs.patch("waiting", "{\"spec\":{\"template\":{\"spec\":{\"priorityClassName\":\"ballast-e2e-high\"}}}}");
      await().atMost(WAIT).until(() -> jobs.worldGeneration("lender") > 1 || jobs.status("lender").get("transition")
          instanceof Map<?, ?> t && "Reclaimed".equals(t.get("reason")));
      assertThat(Duration.between(raised, Instant.now())).as("the edit wakes the lender at once; without the job "
          + "informer it would wait for its next periodic recheck, 30 s").isLessThan(Duration.ofSeconds(10));
      List<String> kept = awaitWorld("lender", 2, 2);
      List<String> given = awaitWorld("waiting", 1, 2);
      Duration admitted = Duration.between(raised, Instant.now());
      assertThat(given).doesNotContainAnyElementsOf(kept);
      assertThat(jobs.restarts("lender")).as("giving back is no restart").isZero();
      assertThat(events("Reclaimed", "lender"))
          .contains(jobs.namespace() + "/waiting waits for room for its workers.min (2); giving back 2 workers");
      assertThat(admitted).as("the edit to the waiting job's world: one checkpoint grace (10 s) and two admissions")
          .isLessThan(Duration.ofSeconds(60));
      assertThat(invariants.violations()).isEmpty();
    }
  }

  /**
   * Reclaim and preemption within a namespace's ResourceQuota (docs/elastic.md, "Namespace quotas"): the pool has room
   * for six workers, the quota of 32 GPUs for four. A job grown to its maximum of four gives two back to a job of its
   * namespace waiting for the quota, as it would to one waiting for room; the API server's own count stays within it.
   * Then a job of higher priority, for which the pool has room but the quota none, stops the newer of the two (both at
   * their minimum), which waits for the quota until the higher-priority job is gone.
   */
  @Test
  void withinANamespaceQuotaAJobGivesWorkersBackToAJobWaitingForItAndAHigherPriorityPreempts() {
    pool = new GpuNodes(env, "resize-quota", 34);
    pool.add(6);
    jobs.gpuQuota(32);
    try (var classes = PriorityClasses.apply(env, "ballast-e2e")) {
      jobs.apply(Jobs.elasticManifest("lender", 2, 4, pool, "", FAST));
      awaitWorld("lender", 1, 4);
      jobs.apply(Jobs.elasticManifest("waiting", 2, 2, pool, "", FAST));
      List<String> kept = awaitWorld("lender", 2, 2);
      List<String> given = awaitWorld("waiting", 1, 2);
      assertThat(given).doesNotContainAnyElementsOf(kept);
      assertThat(events("ExceedsQuota", "waiting")).as("it waited for the quota, not for room")
          .contains("let in 0 workers and workers.min is 2: ResourceQuota gpus (requests.nvidia.com/gpu): 32 GPUs of"
              + " 32 GPUs used");
      assertThat(events("Reclaimed", "lender")).contains(jobs.namespace() + "/waiting waits for the quota of its"
          + " namespace to let in its workers.min (2); giving back 2 workers above workers.min (2)");
      assertThat(jobs.restarts("lender")).as("giving back is no restart").isZero();
      await().atMost(WAIT).untilAsserted(() -> assertThat(env.admin().resourceQuotas()
          .inNamespace(jobs.namespace()).withName("gpus").get().getStatus().getUsed())
          .as("the quota controller's count").containsEntry("requests.nvidia.com/gpu", new Quantity("32")));

      jobs.apply(Jobs.elasticManifest("high", 2, 2, pool, "priorityClassName: ballast-e2e-high\n", "", FAST));
      await().atMost(WAIT).until(() -> transitionReason("waiting").equals("Preempted"));
      assertThat(awaitWorld("high", 1, 2)).as("not on the lender's nodes").doesNotContainAnyElementsOf(kept);
      assertThat(events("Preempted", "waiting")).contains(jobs.namespace() + "/high waits for the quota of its"
          + " namespace to let in its workers.min (2), has a higher priority");
      await().atMost(WAIT).untilAsserted(() -> {
        assertThat(jobs.condition("waiting", "Admitted")).hasValueSatisfying(c -> assertThat(c.get("reason"))
            .isEqualTo("ExceedsQuota"));
        assertThat(jobs.workers("waiting")).as("the preempted world's pods are gone").isEmpty();
      });
      assertThat(jobs.worldGeneration("lender")).as("the older job at its minimum keeps its world").isEqualTo(2);
      env.kubectl("delete", "trainingjob", "high", "-n", jobs.namespace(), "--wait=false").ok();
      awaitWorld("waiting", 2, 2);
      assertThat(jobs.restarts("waiting") + jobs.restarts("lender")).as("preemption and reclaim are no restarts")
          .isZero();
      assertThat(invariants.violations()).isEmpty();
    } finally {
      env.kubectl("delete", "resourcequota", "gpus", "-n", jobs.namespace(), "--ignore-not-found").ok();
    }
  }

  /**
   * Admission order within a quota (docs/elastic.md): beside a job holding 32 of its namespace's 40 GPUs, jobs of the
   * namespace and of one priority wait for their quota, "ahead" first (older, or as old and first by name: creation
   * times are whole seconds). When the namespace's admin raises the quota to 72 GPUs, every one of them is woken at
   * once, and the pool has room for ahead and any one of the jobs behind it, but the quota only for ahead's four workers
   * and one more. No job behind takes the quota first, whichever is reconciled first: none is ever placed, and each
   * waits for the quota once ahead runs.
   */
  @Test
  void jobsWaitingForTheirQuotaTakeItInTurnWhenItIsRaised() {
    pool = new GpuNodes(env, "resize-quota-order", 35);
    pool.add(12);
    jobs.gpuQuota(40);
    try {
      jobs.apply(Jobs.elasticManifest("holder", 4, 4, pool, "", FAST));
      awaitWorld("holder", 1, 4);
      List<String> behind = List.of("behind-1", "behind-2", "behind-3");
      jobs.apply(Jobs.elasticManifest("ahead", 4, 4, pool, "", FAST));
      for (String job : behind) jobs.apply(Jobs.elasticManifest(job, 2, 4, pool, "", FAST));
      for (String job : Stream.concat(Stream.of("ahead"), behind.stream()).toList()) {
        await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.condition(job, "Admitted"))
            .hasValueSatisfying(c -> assertThat(c.get("reason")).isEqualTo("ExceedsQuota")));
      }

      jobs.gpuQuota(72);
      awaitWorld("ahead", 1, 4);
      await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
        for (String job : behind) {
          assertThat(jobs.condition(job, "Admitted")).hasValueSatisfying(c -> assertThat(c.get("reason"))
              .isIn("ExceedsQuota", "QueuedBehind"));
          assertThat(jobs.workers(job)).isEmpty();
        }
      });
      for (String job : behind) {
        assertThat(events("Placed", job)).as(job + " was never placed, not even for a moment").isEmpty();
      }
      assertThat(jobs.worldGeneration("ahead")).isEqualTo(1);
      assertThat(invariants.violations()).isEmpty();
    } finally {
      env.kubectl("delete", "resourcequota", "gpus", "-n", jobs.namespace(), "--ignore-not-found").ok();
    }
  }

  /**
   * Preemption (docs/elastic.md): a job at its minimum and one above it keep their worlds from a waiting job whose
   * PriorityClass says preemptionPolicy: Never. Given a class of higher priority that may preempt, the waiting job,
   * which neither giving back the borrowed workers nor stopping the lower-priority world alone makes room for, takes
   * both: the lender of its own priority gives back two workers (Reclaimed) and the lower-priority job stops
   * (Preempted, checkpoint grace, no restart counted). It runs on their nodes; the preempted job waits for room (Admitted=False)
   * and runs again, as world 2, once it is deleted.
   */
  @Test
  void aWaitingJobOfHigherPriorityPreemptsALowerPriorityJobAndTakesBackBorrowedWorkersWhereOnlyBothMakeRoom() {
    try (var classes = PriorityClasses.apply(env, "ballast-e2e")) { // -high, -low and -never
      pool = new GpuNodes(env, "resize-preempt", 30);
      pool.add(6);
      jobs.apply(Jobs.elasticManifest("low", 2, 2, pool, "priorityClassName: ballast-e2e-low\n", "", FAST));
      awaitWorld("low", 1, 2);
      jobs.apply(Jobs.elasticManifest("lender", 2, 4, pool, "priorityClassName: ballast-e2e-high\n", "", FAST));
      awaitWorld("lender", 1, 4);
      jobs.apply(Jobs.elasticManifest("high", 4, 4, pool, "priorityClassName: ballast-e2e-never\n", "", FAST));
      awaitsRoom("high");
      await().during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
        for (String job : List.of("low", "lender")) {
          assertThat(jobs.worldGeneration(job)).as("preemptionPolicy: Never preempts nothing").isEqualTo(1);
          assertThat(jobs.status(job).get("transition")).isNull();
        }
        assertThat(jobs.phase("high")).isEqualTo("Pending");
      });

      Instant raised = Instant.now();
      jobs.patch("high", "{\"spec\":{\"template\":{\"spec\":{\"priorityClassName\":\"ballast-e2e-high\"}}}}");
      await().atMost(WAIT).until(() -> transitionReason("low").equals("Preempted")
          && transitionReason("lender").equals("Reclaimed"));
      assertThat(Duration.between(raised, Instant.now())).as("the edit wakes both jobs at once")
          .isLessThan(Duration.ofSeconds(10));
      List<String> kept = awaitWorld("lender", 2, 2);
      assertThat(awaitWorld("high", 1, 4)).doesNotContainAnyElementsOf(kept);
      Duration admitted = Duration.between(raised, Instant.now());
      await().atMost(WAIT).untilAsserted(() -> {
        assertThat(jobs.phase("low")).isEqualTo("Pending");
        assertThat(jobs.condition("low", "Admitted")).hasValueSatisfying(c -> {
          assertThat(c.get("status")).isEqualTo("False");
          assertThat(c.get("reason")).isEqualTo("InsufficientGPUs");
        });
        assertThat(jobs.workers("low")).as("the preempted world's pods are gone").isEmpty();
      });
      assertThat(jobs.restarts("low") + jobs.restarts("lender")).as("preemption and reclaim are no restarts").isZero();
      assertThat(events("Preempted", "low")).contains(jobs.namespace()
          + "/high waits for room for its workers.min (4), has a higher priority");
      assertThat(events("Reclaimed", "lender")).contains(jobs.namespace()
          + "/high waits for room for its workers.min (4); giving back 2 workers above");
      assertThat(admitted).as("the edit to the preempting job's world: one checkpoint grace (10 s) and an admission")
          .isLessThan(Duration.ofSeconds(60));

      env.kubectl("delete", "trainingjob", "high", "-n", jobs.namespace(), "--wait=false").ok();
      awaitWorld("low", 2, 2);
      assertThat(jobs.restarts("low")).isZero();
      assertThat(invariants.violations()).isEmpty();
    }
  }

  /**
   * A minimum runtime (docs/elastic.md, "Preemption"): a world of a job whose PriorityClass carries
   * ballast.dev/min-runtime-seconds is preempted for a job of higher priority only once it has run that long. Until
   * then the waiting job's Admitted message names it and when it may give way; then it stops at once (woken at that
   * time, not by a periodic recheck) and the waiting job runs on its nodes.
   */
  @Test
  void aWorldWithinItsClassesMinimumRuntimeIsPreemptedOnlyOnceItHasRunThatLong() {
    try (var classes = PriorityClasses.apply(env, "ballast-e2e")) {
      pool = new GpuNodes(env, "resize-guard", 33);
      pool.add(2);
      jobs.apply(Jobs.elasticManifest("guarded", 2, 2, pool, "priorityClassName: " + classes.guarded() + "\n", "",
          FAST));
      List<String> nodes = awaitWorld("guarded", 1, 2);
      Instant end = Instant.parse((String) jobs.status("guarded").get("worldRunningTime"))
          .plusSeconds(PriorityClasses.GUARDED_MIN_RUNTIME_SECONDS);
      Instant until = end.getNano() == 0 ? end : end.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
      jobs.apply(Jobs.elasticManifest("high", 2, 2, pool, "priorityClassName: " + classes.high() + "\n", "", FAST));
      await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.condition("high", "Admitted"))
          .hasValueSatisfying(c -> {
            assertThat(c.get("reason")).isEqualTo("InsufficientGPUs");
            assertThat((String) c.get("message")).endsWith("; " + jobs.namespace() + "/guarded (until " + until
                + ") would make room but runs within the minimum runtime of its PriorityClass"
                + " (ballast.dev/min-runtime-seconds)");
          }));
      assertThat(Instant.now()).as("the test saw the wait before the minimum runtime ended").isBefore(until);
      await().atMost(WAIT).until(() -> transitionReason("guarded").equals("Preempted"));
      @SuppressWarnings("unchecked")
      Instant preempted = Instant.parse((String) ((Map<String, Object>) jobs.status("guarded").get("transition"))
          .get("since"));
      assertThat(preempted).as("not before its minimum runtime ended").isAfterOrEqualTo(until);
      assertThat(Duration.between(until, preempted)).as("woken when it ended").isLessThan(Duration.ofSeconds(5));
      assertThat(awaitWorld("high", 1, 2)).containsExactlyInAnyOrderElementsOf(nodes);
      assertThat(jobs.restarts("guarded")).isZero();
      assertThat(invariants.violations()).isEmpty();
    }
  }

  /**
   * Admission order (docs/elastic.md): two jobs of one priority wait for the same room; when it frees, the older takes
   * it, whichever of them looks first (without the order, the newer took it whenever its periodic recheck came first),
   * and the newer waits on.
   */
  @Test
  void waitingJobsOfOnePriorityTakeTheRoomOldestFirst() throws InterruptedException {
    pool = new GpuNodes(env, "resize-queue", 31);
    pool.add(2);
    jobs.apply(Jobs.elasticManifest("holder", 2, 2, pool, "", FAST));
    List<String> nodes = awaitWorld("holder", 1, 2);
    for (String job : List.of("older", "newer")) {
      jobs.apply(Jobs.elasticManifest(job, 2, 2, pool, "", FAST));
      awaitsRoom(job);
      Thread.sleep(1100); // creation times have whole seconds: the second job is newer
    }
    env.kubectl("delete", "trainingjob", "holder", "-n", jobs.namespace(), "--wait=false").ok();
    assertThat(awaitWorld("older", 1, 2)).containsExactlyInAnyOrderElementsOf(nodes);
    awaitsRoom("newer");
    assertThat(jobs.workers("newer")).isEmpty();
    assertThat(jobs.phase("newer")).isEqualTo("Pending");
    assertThat(invariants.violations()).isEmpty();
  }

  /**
   * A reservation (docs/elastic.md, "Admission order"): a job of 4 that has waited longer than its
   * spec.elastic.reserveAfterSeconds keeps a newer job of 2 from the two free nodes (without it, the newer job would
   * backfill them); when the job holding the other two ends, the waiting job runs on all four.
   */
  @Test
  void aJobThatHasWaitedLongerThanItsReserveAfterSecondsKeepsTheJobsBehindItOffTheRoomItNeeds() {
    pool = new GpuNodes(env, "resize-reserve", 32);
    pool.add(4);
    jobs.apply(Jobs.elasticManifest("holder", 2, 2, pool, "", FAST));
    awaitWorld("holder", 1, 2);
    jobs.apply(Jobs.elasticManifest("big", 4, 4, pool, "",
        "elastic: {cooldownSeconds: 0, checkpointTimeoutSeconds: 10, reserveAfterSeconds: 5}"));
    awaitsRoom("big");
    Instant reserving = Instant.parse(jobs.get("big").getMetadata().getCreationTimestamp()).plusSeconds(5);
    await().atMost(Duration.ofSeconds(10)).until(() -> Instant.now().isAfter(reserving));

    jobs.apply(Jobs.elasticManifest("small", 2, 2, pool, "", FAST));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.condition("small", "Admitted")).hasValueSatisfying(c -> {
      assertThat(c.get("reason")).isEqualTo("QueuedBehind");
      assertThat((String) c.get("message")).startsWith(jobs.namespace() + "/big (priority 0) waits ahead of this job")
          .endsWith("longer than its spec.elastic.reserveAfterSeconds (5): it reserves the room for its workers.min"
              + " (4), and this job waits until it runs");
    }));
    await().during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
      assertThat(jobs.workers("small")).as("two nodes are free, but reserved").isEmpty();
      assertThat(jobs.phase("small")).isEqualTo("Pending");
    });

    env.kubectl("delete", "trainingjob", "holder", "-n", jobs.namespace(), "--wait=false").ok();
    awaitWorld("big", 1, 4);
    awaitsRoom("small");
    assertThat(jobs.workers("small")).isEmpty();
    assertThat(invariants.violations()).isEmpty();
  }

  /** Waits until {@code job} waits for room: Admitted=False, InsufficientGPUs. */
  private void awaitsRoom(String job) {
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.condition(job, "Admitted"))
        .hasValueSatisfying(c -> assertThat(c.get("reason")).isEqualTo("InsufficientGPUs")));
  }

  private String transitionReason(String job) {
    return jobs.status(job).get("transition") instanceof Map<?, ?> t ? String.valueOf(t.get("reason")) : "";
  }

  private String events(String reason, String job) {
    return env.kubectl("get", "events", "-n", jobs.namespace(), "--field-selector", "reason=" + reason
        + ",involvedObject.name=" + job, "-o", "jsonpath={.items[*].message}").ok().stdout();
  }

  /** For 10 s, the lender's world and the waiting job's phase stay as they are. */
  private void keepsItsWorkers(String why) {
    await().during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
      assertThat(jobs.worldGeneration("lender")).as(why + ": it keeps its workers").isEqualTo(1);
      assertThat(jobs.phase("waiting")).isEqualTo("Pending");
    });
  }

  @Test
  void anEditOfSpecWorkersResizesTheRunningJob() {
    pool = new GpuNodes(env, "resize-edit", 21);
    pool.add(4);
    jobs.apply(Jobs.elasticManifest("edited", 2, 2, pool, "", FAST));
    awaitWorld("edited", 1, 2);
    long specGeneration = jobs.get("edited").getMetadata().getGeneration();

    jobs.patch("edited", "{\"spec\":{\"workers\":{\"min\":2,\"max\":4}}}");
    awaitWorld("edited", 2, 4);
    assertThat(jobs.status("edited").get("observedGeneration")).as("the edit is in effect")
        .isEqualTo((int) specGeneration + 1);

    jobs.patch("edited", "{\"spec\":{\"workers\":{\"min\":2,\"max\":2}}}");
    awaitWorld("edited", 3, 2);
    assertThat(((Number) jobs.status("edited").get("observedGeneration")).longValue()).isEqualTo(specGeneration + 2);
    assertThat(jobs.restarts("edited")).as("voluntary resizes are not restarts").isZero();
    assertThat(invariants.violations()).isEmpty();
  }
}
