package dev.ballast.operator.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.admission.NamespaceQuota;
import dev.ballast.operator.api.BalancerStatusSchema;
import dev.ballast.operator.api.ParallelismSpec;
import dev.ballast.operator.api.RecoverySpec;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import dev.ballast.operator.desired.Labels;
import dev.ballast.operator.placement.Taint;
import dev.ballast.operator.status.Conditions;
import dev.ballast.operator.status.StatusReason;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every resize and recovery decision, played on {@link WorldSim} with the production decide and status code. */
class WorldLifecycleTest {
  final WorldSim sim = new WorldSim();
  TrainingJob job;

  @BeforeEach
  void twoNodeJob() {
    job = TestJobs.job("olmoe", 2, 4, 8);
    job.getSpec().elastic.cooldownSeconds = 60;
    job.getMetadata().setCreationTimestamp(sim.now.toString());
    sim.jobs.add(job);
  }

  /** Admits, releases, binds, commits and runs the world on whatever nodes exist. */
  void runWorld() {
    sim.settle(6);
    assertThat(job.getStatus().phase).isEqualTo(Phase.Running);
  }

  long generation() {
    return job.getStatus().world.generation;
  }

  List<String> names() {
    return sim.live(job).stream().map(p -> p.getMetadata().getName()).sorted().toList();
  }

  Optional<Condition> condition(String type) {
    return job.getStatus().conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  void tick(long seconds) {
    sim.now = sim.now.plusSeconds(seconds);
  }

  /**
   * The reconcile right after admission sees only part of the gang in its pod cache (it lags the API server): the
   * pods admission created count as existing until the cache shows them, within {@link UnseenPods#BOUND}.
   */
  @Test
  void podsAdmissionCreatedThatTheCacheDoesNotShowYetAreAwaitedNotRolledBackUntilTheBound() {
    sim.nodes("n0", "n1");
    assertThat(sim.reconcile(job, false).step()).isEqualTo(new WorldStep.Place(1, job.getSpec().workers.max));
    Pod w0 = sim.pods.get("olmoe-g1-w0");
    var created = sim.now;
    var oneUnseen = new ClusterView(sim.nodes, null, List.of(), new UnseenPods(1, 2, List.of("olmoe-g1-w1"), created));

    var partial = WorldLifecycle.decide(job, List.of(w0), oneUnseen, sim.now.plusSeconds(1));
    var deadline = created.plus(UnseenPods.BOUND);
    assertThat(partial.step()).isEqualTo(new WorldStep.AwaitPods(1, 1, 2, deadline));
    assertThat(partial.stop()).as("no pod of the world is deleted").isEmpty();
    assertThat(partial.wakeAt()).isEqualTo(deadline);
    var status = dev.ballast.operator.status.StatusAggregator.aggregate(job, partial, null, sim.now);
    assertThat(status.phase).isEqualTo(Phase.Admitted);

    var noneShown = new ClusterView(sim.nodes, null, List.of(),
        new UnseenPods(1, 2, List.of("olmoe-g1-w0", "olmoe-g1-w1"), created));
    assertThat(WorldLifecycle.decide(job, List.of(), noneShown, sim.now.plusSeconds(1)).step())
        .as("the world is not admitted a second time").isEqualTo(new WorldStep.AwaitPods(1, 0, 2, deadline));

    assertThat(WorldLifecycle.decide(job, List.of(w0), oneUnseen, deadline).step())
        .as("past the bound the unseen pod is missing")
        .isInstanceOfSatisfying(WorldStep.RollBack.class, rb -> {
          assertThat(rb.reason()).isEqualTo("IncompleteGang");
          assertThat(rb.message()).isEqualTo("only 1 of 2 worker pods of world 1 exist");
        });
    assertThat(WorldLifecycle.decide(job, List.of(w0), new ClusterView(sim.nodes, null, List.of()), sim.now).step())
        .as("a pod admission did not create (or the cache showed, then lost) is missing at once")
        .isInstanceOf(WorldStep.RollBack.class);
    assertThat(WorldLifecycle.decide(job, List.of(), new ClusterView(sim.nodes, null, List.of(),
        new UnseenPods(1, 2, List.of("olmoe-g1-w0", "olmoe-g1-w1"), created)), deadline).step())
        .as("a world never shown by the bound is admitted again").isEqualTo(new WorldStep.Place(1, job.getSpec().workers.max));

    assertThat(sim.reconcile(job, false).step()).as("the cache caught up").isInstanceOf(WorldStep.Release.class);
  }

  @Test
  void aWorldIsAdmittedAsAGangCommittedAndRunsWithGenerationNamedPods() {
    sim.nodes("n0", "n1");
    var first = sim.reconcile(job, false);
    assertThat(first.step()).isEqualTo(new WorldStep.Place(1, job.getSpec().workers.max));
    assertThat(sim.pods.keySet()).containsExactly("olmoe-g1-w0", "olmoe-g1-w1");
    assertThat(sim.reconcile(job, false).step()).isInstanceOf(WorldStep.Release.class);
    sim.kubelets();
    var commit = sim.reconcile(job, false);
    assertThat(commit.step()).isInstanceOf(WorldStep.Commit.class);
    assertThat(commit.wakeAt()).as("the committed world is judged again at once, whether or not a pod event follows")
        .isEqualTo(sim.now);
    sim.kubelets();
    var run = sim.reconcile(job, false);
    assertThat(run.step()).isInstanceOfSatisfying(WorldStep.Run.class, r -> assertThat(r.ready()).isEqualTo(2));
    assertThat(run.specInEffect()).isTrue();
    assertThat(job.getStatus().phase).isEqualTo(Phase.Running);
    assertThat(job.getStatus().worldCommitTime).isNotNull();
    assertThat(job.getStatus().observedGeneration).isEqualTo(1L);
  }

  @Test
  void aRetryableFailureRecordsTheRestartFirstThenStopsTheWorldThenBacksOffThenAdmitsTheNextGeneration() {
    sim.nodes("n0", "n1");
    runWorld();
    sim.exit("olmoe-g1-w1", RecoverySpec.TEMPFAIL);

    var transition = sim.reconcile(job, false);
    assertThat(transition.step()).isInstanceOfSatisfying(WorldStep.Transition.class, t -> {
      assertThat(t.countsAsRestart()).isTrue();
      assertThat(t.transition().reason).isEqualTo("WorkerFailed");
      assertThat(t.transition().message).contains("olmoe-g1-w1").contains("exited with code 75");
    });
    assertThat(transition.stop()).as("nothing is stopped before the transition is recorded").isEmpty();
    assertThat(job.getStatus().restarts).isEqualTo(1);
    assertThat(job.getStatus().phase).isEqualTo(Phase.Restarting);

    var stopping = sim.reconcile(job, false);
    assertThat(stopping.step()).isEqualTo(new WorldStep.Stopping(1, 1));
    assertThat(stopping.stop()).extracting(p -> p.getMetadata().getName())
        .containsExactlyInAnyOrder("olmoe-g1-w0", "olmoe-g1-w1");
    assertThat(stopping.stopGraceSeconds()).as("a failure restart keeps the pods' own grace").isNull();
    sim.kubelets();

    var waiting = sim.reconcile(job, false);
    assertThat(waiting.step()).isInstanceOfSatisfying(WorldStep.Wait.class, w -> {
      assertThat(w.reason()).isEqualTo("RestartBackoff");
      assertThat(w.until()).isEqualTo(sim.now.plusSeconds(10));
    });
    assertThat(waiting.wakeAt()).isEqualTo(sim.now.plusSeconds(10));
    tick(10);
    assertThat(sim.reconcile(job, false).step()).isEqualTo(new WorldStep.Place(2, job.getSpec().workers.max));
    sim.settle(4);
    assertThat(generation()).isEqualTo(2L);
    assertThat(names()).containsExactly("olmoe-g2-w0", "olmoe-g2-w1");
    assertThat(job.getStatus().transition).isNull();
    assertThat(job.getStatus().restarts).isEqualTo(1);
    assertThat(job.getStatus().phase).isEqualTo(Phase.Running);
  }

  @Test
  void theBackoffDoublesWithEveryRestartUpToItsMaximum() {
    sim.nodes("n0", "n1");
    job.getSpec().recovery.maxBackoffSeconds = 30;
    runWorld();
    long[] expected = {10, 20, 30, 30};
    for (long delay : expected) {
      var pod = names().get(0);
      sim.exit(pod, 137);
      sim.reconcile(job, false);
      assertThat(job.getStatus().transition.notBefore).isEqualTo(sim.now.plusSeconds(delay).toString());
      tick(delay);
      runWorld();
    }
    assertThat(job.getStatus().restarts).isEqualTo(4);
  }

  @Test
  void aFatalExitCodeFailsTheJobStopsTheOthersAndKeepsTheFailedPod() {
    sim.nodes("n0", "n1");
    runWorld();
    sim.exit("olmoe-g1-w1", 3);
    var d = sim.reconcile(job, false);
    assertThat(d.step()).isInstanceOfSatisfying(WorldStep.Finish.class, f -> {
      assertThat(f.succeeded()).isFalse();
      assertThat(f.message()).startsWith("worker olmoe-g1-w1 on node n1: container trainer exited with code 3 (Error)");
    });
    assertThat(d.stop()).extracting(p -> p.getMetadata().getName()).containsExactly("olmoe-g1-w0");
    assertThat(job.getStatus().phase).isEqualTo(Phase.Failed);
    assertThat(job.getStatus().restarts).isZero();
  }

  @Test
  void exitCodesFollowTheDocumentedDefaultsAndTheSpecsOverrides() {
    RecoverySpec r = new RecoverySpec();
    assertThat(ExitPolicy.retryable(failed(75), r)).isTrue();
    assertThat(ExitPolicy.retryable(failed(137), r)).isTrue();
    assertThat(ExitPolicy.retryable(failed(143), r)).isTrue();
    assertThat(ExitPolicy.retryable(failed(1), r)).isFalse();
    assertThat(ExitPolicy.retryable(failed(3), r)).isFalse();
    r.fatalExitCodes = List.of(137);
    r.retryableExitCodes = List.of(1);
    assertThat(ExitPolicy.retryable(failed(137), r)).isFalse();
    assertThat(ExitPolicy.retryable(failed(1), r)).isTrue();
    assertThat(ExitPolicy.retryable(failed(75), r)).as("the list replaces the default").isFalse();

    Pod evicted = new Pod();
    evicted.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta());
    evicted.setStatus(new PodStatusBuilder().withPhase("Failed").withReason("Evicted").build());
    assertThat(ExitPolicy.retryable(new WorkerPodView(evicted), r)).isTrue();
    WorkerPodView preempted = failed(1);
    preempted.pod().getStatus().setConditions(List.of(new PodConditionBuilder().withType("DisruptionTarget")
        .withStatus("True").withReason("PreemptionByScheduler").build()));
    assertThat(ExitPolicy.retryable(preempted, r)).as("a disruption is never the trainer's fault").isTrue();
  }

  private WorkerPodView failed(int code) {
    Pod pod = new Pod();
    pod.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta());
    sim.pods.put("p", pod);
    pod.setSpec(new io.fabric8.kubernetes.api.model.PodSpec());
    sim.exit("p", code);
    sim.pods.remove("p");
    return new WorkerPodView(pod);
  }

  @Test
  void whenTheRestartLimitIsExhaustedTheJobFailsWithTheLastCause() {
    sim.nodes("n0", "n1");
    job.getSpec().restartLimit = 1;
    runWorld();
    sim.exit("olmoe-g1-w0", 137);
    sim.reconcile(job, false);
    tick(10);
    runWorld();
    sim.exit("olmoe-g2-w1", 137);
    var d = sim.reconcile(job, false);
    assertThat(d.step()).isInstanceOfSatisfying(WorldStep.Finish.class, f -> {
      assertThat(f.reason()).isEqualTo("RestartLimitExceeded");
      assertThat(f.message()).contains("restartLimit (1) is exhausted after 1 restarts")
          .contains("olmoe-g2-w1").contains("code 137");
    });
    assertThat(job.getStatus().phase).isEqualTo(Phase.Failed);
  }

  @Test
  void aDeletedOrEvictedWorkerRestartsTheWorld() {
    sim.nodes("n0", "n1");
    runWorld();
    sim.pods.remove("olmoe-g1-w1");
    var d = sim.reconcile(job, false);
    assertThat(d.step()).isInstanceOfSatisfying(WorldStep.Transition.class, t -> {
      assertThat(t.transition().reason).isEqualTo("WorkerLost");
      assertThat(t.transition().message).contains("olmoe-g1-w1");
    });
  }

  @Test
  void aNodeNotReadyBeyondBallastsGracePeriodRestartsTheWorldElsewhereWithoutWaitingForItsStuckPod() {
    sim.nodes("n0", "n1", "n2");
    job.getSpec().workers.max = 2;
    runWorld();
    String lostNode = sim.pods.get("olmoe-g1-w1").getSpec().getNodeName();
    sim.notReady(lostNode);
    tick(30);
    var within = sim.reconcile(job, false);
    assertThat(within.step()).as("within the grace period the world keeps running").isInstanceOf(WorldStep.Run.class);
    assertThat(within.wakeAt()).isEqualTo(sim.now.plusSeconds(30));

    tick(30);
    var lost = sim.reconcile(job, false);
    assertThat(lost.step()).isInstanceOfSatisfying(WorldStep.Transition.class, t -> {
      assertThat(t.transition().reason).isEqualTo("NodeLost");
      assertThat(t.transition().message).contains("node " + lostNode + " is NotReady since");
    });
    var stopping = sim.reconcile(job, false);
    assertThat(stopping.forceDelete()).as("never force-deleted while the node might still run it").isEmpty();
    sim.kubelets();
    assertThat(sim.pods).as("the pod on the unreachable node is stuck Terminating").containsKey("olmoe-g1-w1");
    tick(10);
    sim.settle(6);
    assertThat(generation()).isEqualTo(2L);
    assertThat(job.getStatus().world.nodes).extracting(n -> n.node).doesNotContain(lostNode).hasSize(2);
    assertThat(sim.pods).containsKey("olmoe-g1-w1");
  }

  @Test
  void withoutRoomElsewhereTheWorldShrinksButNeverBelowMin() {
    sim.nodes("n0", "n1", "n2");
    runWorld();
    assertThat(job.getStatus().world.nodes).hasSize(3);
    sim.deleteNode("n2");
    var d = sim.reconcile(job, false);
    assertThat(d.step()).isInstanceOfSatisfying(WorldStep.Transition.class,
        t -> assertThat(t.transition().message).contains("node n2 was deleted"));
    var stopping = sim.reconcile(job, false);
    assertThat(stopping.forceDelete()).extracting(p -> p.getMetadata().getName())
        .as("the Node is gone: its pod is force-deleted").containsExactly("olmoe-g1-w2");
    tick(10);
    sim.settle(6);
    assertThat(job.getStatus().world.nodes).hasSize(2);

    sim.deleteNode("n1");
    sim.settle(3);
    tick(20);
    sim.settle(3);
    assertThat(job.getStatus().world.generation).as("no world of one worker is admitted").isEqualTo(2L);
    assertThat(job.getStatus().phase).isEqualTo(Phase.Restarting);
    assertThat(condition(Conditions.ADMITTED)).hasValueSatisfying(c -> {
      assertThat(c.getReason()).isEqualTo("InsufficientGPUs");
      assertThat(c.getMessage()).contains("2");
    });
    assertThat(sim.live(job)).isEmpty();
  }

  @Test
  void anOutOfServiceTaintAllowsForceDeletion() {
    sim.nodes("n0", "n1", "n2");
    job.getSpec().workers.max = 2;
    runWorld();
    String node = sim.pods.get("olmoe-g1-w0").getSpec().getNodeName();
    sim.notReady(node);
    sim.outOfService(node);
    sim.reconcile(job, false);
    var stopping = sim.reconcile(job, false);
    assertThat(stopping.forceDelete()).extracting(p -> p.getMetadata().getName()).containsExactly("olmoe-g1-w0");
  }

  @Test
  void theJobGrowsWhenRoomAppearsAfterTheCooldownWithACheckpointGrace() {
    sim.nodes("n0", "n1");
    runWorld();
    sim.nodes("n2", "n3");
    assertThat(sim.reconcile(job, false).step()).as("cooldown").isInstanceOf(WorldStep.Run.class);
    tick(60);
    var grow = sim.reconcile(job, false);
    assertThat(grow.step()).isInstanceOfSatisfying(WorldStep.Transition.class, t -> {
      assertThat(t.countsAsRestart()).isFalse();
      assertThat(t.transition().reason).isEqualTo("CapacityAvailable");
      assertThat(t.transition().workers).isEqualTo(4);
    });
    assertThat(job.getStatus().phase).isEqualTo(Phase.Resizing);
    assertThat(condition(Conditions.RESIZING)).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True"));
    var stopping = sim.reconcile(job, false);
    assertThat(stopping.stopGraceSeconds()).isEqualTo(job.getSpec().elastic.checkpointTimeoutSeconds);
    sim.settle(6);
    assertThat(generation()).isEqualTo(2L);
    assertThat(names()).containsExactly("olmoe-g2-w0", "olmoe-g2-w1", "olmoe-g2-w2", "olmoe-g2-w3");
    assertThat(job.getStatus().restarts).as("a resize is not a restart").isZero();
    assertThat(condition(Conditions.RESIZING)).hasValueSatisfying(c -> {
      assertThat(c.getStatus()).isEqualTo("False");
      assertThat(c.getReason()).isEqualTo("Resized");
    });
  }

  @Test
  void growthYieldsToAJobWaitingForItsMinimumAndNeedsTheMinimumGain() {
    sim.nodes("n0", "n1");
    runWorld();
    TrainingJob other = TestJobs.job("waiting", 3, 3, 8);
    sim.jobs.add(other);
    sim.settle(2);
    assertThat(other.getStatus().phase).isEqualTo(Phase.Pending);
    sim.nodes("n2");
    tick(60);
    sim.reconcile(job, false);
    assertThat(job.getStatus().transition).as("n2 could help the waiting job").isNull();

    sim.jobs.remove(other);
    job.getSpec().elastic.minGainWorkers = 2;
    assertThat(sim.reconcile(job, false).step()).as("one more worker is not worth a restart").isInstanceOf(WorldStep.Run.class);
    job.getSpec().elastic.minGainWorkers = 1;
    assertThat(sim.reconcile(job, false).step()).isInstanceOf(WorldStep.Transition.class);
  }

  /** A second job, created after {@link #job}, that needs {@code min} workers of 8 GPUs. */
  TrainingJob waitingJob(String name, int min, int max) {
    TrainingJob other = TestJobs.job(name, min, max, 8);
    other.getMetadata().setCreationTimestamp(sim.now.plusSeconds(1).toString());
    sim.jobs.add(other);
    sim.settle(2);
    assertThat(other.getStatus().phase).isEqualTo(Phase.Pending);
    assertThat(WorldLifecycle.waitingForRoom(other)).isTrue();
    return other;
  }

  @Test
  void aJobAboveItsMinimumGivesWorkersBackToAJobWaitingForItsOwn() {
    sim.nodes("n0", "n1", "n2", "n3");
    job.getSpec().elastic.reclaimable = false;
    runWorld();
    assertThat(sim.live(job)).hasSize(4);
    TrainingJob other = waitingJob("waiting", 2, 3);
    assertThat(job.getStatus().transition).as("spec.elastic.reclaimable false keeps the workers").isNull();

    job.getSpec().elastic.reclaimable = true; // a live field
    Decision lend = sim.reconcile(job, false);
    assertThat(lend.step()).isInstanceOfSatisfying(WorldStep.Transition.class, t -> {
      assertThat(t.countsAsRestart()).isFalse();
      assertThat(t.transition().reason).isEqualTo("Reclaimed");
      assertThat(t.transition().voluntary).isTrue();
      assertThat(t.transition().workers).as("the largest size that leaves the waiting job its 2").isEqualTo(2);
      assertThat(t.transition().forJob).isEqualTo("team-a/waiting");
      assertThat(t.transition().message).isEqualTo("team-a/waiting waits for room for its workers.min (2); giving "
          + "back 2 workers above workers.min (2): world 1 has 4, the next has 2");
    });

    Decision held = sim.reconcile(other, false);
    assertThat(held.step()).as("the waiting job is admitted after the lender's next world")
        .isInstanceOfSatisfying(WorldStep.Wait.class, w -> assertThat(w.reason()).isEqualTo("AwaitingReclaim"));
    assertThat(WorldLifecycle.waitingForRoom(other)).as("growth still yields to it").isTrue();

    sim.settle(8);
    assertThat(job.getStatus().world.generation).isEqualTo(2L);
    assertThat(sim.live(job)).as("the lender's next world keeps the size it gave back down to").hasSize(2);
    assertThat(job.getStatus().restarts).as("giving back is no restart").isZero();
    assertThat(other.getStatus().phase).isEqualTo(Phase.Running);
    assertThat(sim.live(other)).hasSize(2);
    assertThat(job.getStatus().transition).isNull();
  }

  @Test
  void ofTwoJobsThatCouldGiveBackTheNewestDoesAndNoneForAJobOnlyBothTogetherOrNoneCouldMakeRoomFor() {
    sim.nodes("n0", "n1", "n2", "n3");
    job.getSpec().workers.min = 1;
    job.getSpec().workers.max = 2;
    runWorld();
    TrainingJob newer = TestJobs.job("newer", 1, 2, 8);
    newer.getMetadata().setCreationTimestamp(sim.now.plusSeconds(1).toString());
    sim.jobs.add(newer);
    sim.settle(6);
    assertThat(sim.live(newer)).hasSize(2);

    TrainingJob waiting = waitingJob("waiting", 1, 1);
    assertThat(newer.getStatus().transition).satisfies(t -> {
      assertThat(t.reason).isEqualTo("Reclaimed");
      assertThat(t.workers).isEqualTo(1);
      assertThat(t.forJob).isEqualTo("team-a/waiting");
    });
    assertThat(job.getStatus().transition).as("the older job keeps its workers").isNull();
    sim.settle(8);
    assertThat(sim.live(newer)).hasSize(1);
    assertThat(sim.live(waiting)).hasSize(1);
    assertThat(sim.live(job)).hasSize(2);

    TrainingJob big = waitingJob("big", 2, 2);
    sim.settle(4);
    assertThat(big.getStatus().phase).as("job alone frees one node, newer none (at its minimum)")
        .isEqualTo(Phase.Pending);
    assertThat(job.getStatus().world.generation).isEqualTo(1L);

    sim.jobs.remove(big);
    sim.nodes("n4");
    TrainingJob fits = TestJobs.job("fits", 1, 1, 8);
    sim.jobs.add(fits);
    sim.settle(6);
    assertThat(sim.live(fits)).as("it had room of its own").hasSize(1);
    assertThat(job.getStatus().world.generation).isEqualTo(1L);
    assertThat(newer.getStatus().world.generation).isEqualTo(2L);
    assertThat(job.getStatus().restarts + newer.getStatus().restarts).isZero();
  }

  @Test
  void twoJobsGiveBackTogetherForAJobNeitherAloneCanMakeRoomFor() {
    sim.nodes("n0", "n1", "n2", "n3");
    job.getSpec().workers.min = 1;
    job.getSpec().workers.max = 2;
    TrainingJob other = TestJobs.job("other", 1, 2, 8);
    other.getMetadata().setCreationTimestamp(sim.now.plusSeconds(1).toString());
    sim.jobs.add(other);
    sim.settle(6);
    assertThat(sim.live(job)).hasSize(2);
    assertThat(sim.live(other)).hasSize(2);

    TrainingJob waiting = waitingJob("waiting", 2, 2);
    sim.settle(1);
    assertThat(List.of(job, other)).allSatisfy(j -> assertThat(j.getStatus().transition).satisfies(t -> {
      assertThat(t.reason).isEqualTo("Reclaimed");
      assertThat(t.workers).isEqualTo(1);
    }));
    sim.settle(10);
    assertThat(sim.live(job)).hasSize(1);
    assertThat(sim.live(other)).hasSize(1);
    assertThat(sim.live(waiting)).hasSize(2);
    assertThat(job.getStatus().restarts + other.getStatus().restarts).isZero();
  }

  @Test
  void aWaitingJobStopsWaitingForALenderWhoseWorkersTakeLongerThanTheirGraceToStop() {
    sim.nodes("n0", "n1", "n2", "n3");
    runWorld();
    TrainingJob other = waitingJob("waiting", 2, 2);
    sim.reconcile(job, false);
    assertThat(job.getStatus().transition.reason).isEqualTo("Reclaimed");
    assertThat(WorldLifecycle.givingWayFor(other, sim.jobs, sim.now)).containsExactly("team-a/olmoe");
    tick(job.getSpec().elastic.checkpointTimeoutSeconds + 59);
    assertThat(WorldLifecycle.givingWayFor(other, sim.jobs, sim.now)).containsExactly("team-a/olmoe");
    tick(1);
    assertThat(WorldLifecycle.givingWayFor(other, sim.jobs, sim.now)).isEmpty();
  }

  /** Priorities high (1000), high-never (1000, preemptionPolicy Never) and low (10); the job runs as low. */
  TrainingJob lowPriorityJobAndAWaitingOne(String waitingClass) {
    sim.priorities = new dev.ballast.operator.observe.Priorities(
        java.util.Map.of("high", 1000, "high-never", 1000, "low", 10), null, java.util.Set.of("high-never"));
    job.getSpec().template.getSpec().setPriorityClassName("low");
    job.getSpec().workers.min = 2;
    job.getSpec().workers.max = 2;
    runWorld();
    TrainingJob high = TestJobs.job("high", 2, 2, 8);
    high.getSpec().template.getSpec().setPriorityClassName(waitingClass);
    high.getMetadata().setCreationTimestamp(sim.now.plusSeconds(1).toString());
    sim.jobs.add(high);
    return high;
  }

  @Test
  void aWaitingJobOfHigherPriorityPreemptsAJobAtItsMinimumWhichRunsAgainWhenRoomReturns() {
    sim.nodes("n0", "n1");
    TrainingJob high = lowPriorityJobAndAWaitingOne("high-never");
    sim.settle(3);
    assertThat(high.getStatus().phase).isEqualTo(Phase.Pending);
    assertThat(job.getStatus().transition).as("preemptionPolicy: Never").isNull();
    high.getSpec().template.getSpec().setPriorityClassName("low");
    sim.settle(3);
    assertThat(job.getStatus().transition).as("an equal priority preempts nothing").isNull();

    high.getSpec().template.getSpec().setPriorityClassName("high");
    Decision preempt = sim.reconcile(job, false);
    assertThat(preempt.step()).isInstanceOfSatisfying(WorldStep.Transition.class, t -> {
      assertThat(t.countsAsRestart()).isFalse();
      assertThat(t.transition().reason).isEqualTo("Preempted");
      assertThat(t.transition().voluntary).as("trainers get the checkpoint grace").isTrue();
      assertThat(t.transition().forJob).isEqualTo("team-a/high");
      assertThat(t.transition().message).isEqualTo("team-a/high waits for room for its workers.min (2), has a higher"
          + " priority, and giving back workers above workers.min alone cannot make that room: world 1 stops (no"
          + " restart counted), and this job waits for room for its workers.min (2) again");
    });
    assertThat(job.getStatus().phase).isEqualTo(Phase.Resizing);
    sim.reconcile(job, false);
    assertThat(sim.reconcile(high, false).step()).as("the waiting job is admitted once the workers have stopped")
        .isInstanceOfSatisfying(WorldStep.Wait.class, w -> assertThat(w.reason()).isEqualTo("AwaitingPreemption"));

    sim.kubelets(); // the trainers checkpoint and exit
    Decision held = sim.reconcile(job, false);
    assertThat(held.step()).as("the preempted job leaves the room to the job it was preempted for")
        .isInstanceOfSatisfying(WorldStep.Wait.class, w -> {
          assertThat(w.reason()).isEqualTo("Preempted");
          assertThat(w.message()).isEqualTo("world 1 was stopped for team-a/high, which has a higher priority; this"
              + " job waits for room for its workers.min (2) once that job is admitted");
        });
    assertThat(job.getStatus().phase).isEqualTo(Phase.Pending);
    assertThat(condition(Conditions.RESIZING)).hasValueSatisfying(c -> {
      assertThat(c.getStatus()).isEqualTo("False");
      assertThat(c.getReason()).isEqualTo("Preempted");
    });
    assertThat(WorldLifecycle.waitingForRoom(job)).as("growth yields to it").isTrue();

    sim.settle(6);
    assertThat(sim.live(high)).hasSize(2);
    assertThat(high.getStatus().phase).isEqualTo(Phase.Running);
    assertThat(job.getStatus().phase).isEqualTo(Phase.Pending);
    assertThat(condition(Conditions.ADMITTED)).hasValueSatisfying(c -> assertThat(c.getReason())
        .isEqualTo("InsufficientGPUs"));
    assertThat(job.getStatus().restarts).as("preemption is no restart").isZero();

    sim.podsOf(high).forEach(p -> sim.exit(p.getMetadata().getName(), 0));
    sim.settle(8);
    assertThat(high.getStatus().phase).isEqualTo(Phase.Succeeded);
    assertThat(job.getStatus().phase).isEqualTo(Phase.Running);
    assertThat(generation()).isEqualTo(2L);
    assertThat(job.getStatus().transition).isNull();
    assertThat(job.getStatus().restarts).isZero();
  }

  /**
   * The job runs 2..2 on both nodes; "first" (class high, at least {@code firstMin} of 2) and then "second" (1..2)
   * wait. The job finishes; the second job is reconciled first.
   */
  TrainingJob[] twoWaitingWhenRoomAppears(int firstMin) {
    sim.nodes("n0", "n1");
    sim.priorities = new dev.ballast.operator.observe.Priorities(java.util.Map.of("high", 1000), null,
        java.util.Set.of());
    job.getSpec().workers.max = 2;
    runWorld();
    TrainingJob first = waitingJob("first", firstMin, Math.max(firstMin, 2));
    TrainingJob second = waitingJob("second", 1, 2);
    second.getMetadata().setCreationTimestamp(sim.now.plusSeconds(2).toString());
    first.getSpec().template.getSpec().setPriorityClassName("high"); // now: it would preempt the job while it runs
    sim.podsOf(job).forEach(p -> sim.exit(p.getMetadata().getName(), 0));
    for (int i = 0; i < 3; i++) {
      sim.reconcile(job, false);
      sim.kubelets();
    }
    assertThat(job.getStatus().phase).isEqualTo(Phase.Succeeded);
    assertThat(sim.live(job)).isEmpty();
    sim.reconcile(second, false);
    return new TrainingJob[] {first, second};
  }

  @Test
  void waitingJobsTakeRoomInTurnTheHigherPriorityFirst() {
    TrainingJob[] jobs = twoWaitingWhenRoomAppears(2);
    TrainingJob first = jobs[0];
    TrainingJob second = jobs[1];
    assertThat(second.getStatus().conditions).filteredOn(c -> c.getType().equals(Conditions.ADMITTED))
        .singleElement().satisfies(c -> {
          assertThat(c.getReason()).isEqualTo("QueuedBehind");
          assertThat(c.getMessage()).startsWith("team-a/first (priority 1000, 2 workers) waits ahead of this job");
        });
    assertThat(sim.live(second)).isEmpty();
    assertThat(WorldLifecycle.waitingForRoom(second)).as("growth and reclaim still count it as waiting").isTrue();
    sim.settle(6);
    assertThat(sim.live(first)).hasSize(2);
    assertThat(first.getStatus().phase).isEqualTo(Phase.Running);
    assertThat(second.getStatus().phase).isEqualTo(Phase.Pending);
  }

  @Test
  void aJobBehindOneThatDoesNotFitTakesTheRoom() {
    TrainingJob[] jobs = twoWaitingWhenRoomAppears(3);
    assertThat(sim.live(jobs[1])).as("the first job needs three nodes of two: it holds no one back").hasSize(2);
    sim.settle(6);
    assertThat(jobs[1].getStatus().phase).isEqualTo(Phase.Running);
    assertThat(jobs[0].getStatus().phase).isEqualTo(Phase.Pending);
  }

  @Test
  void aWorldWithinItsClassesMinimumRuntimeIsPreemptedOnlyOnceItHasRunThatLong() {
    sim.nodes("n0", "n1");
    TrainingJob high = lowPriorityJobAndAWaitingOne("high");
    sim.priorities = new dev.ballast.operator.observe.Priorities(sim.priorities.byName(), null, java.util.Set.of(),
        java.util.Map.of("low", java.time.Duration.ofMinutes(10)), List.of());
    Instant until = Instant.parse(job.getStatus().worldRunningTime).plusSeconds(600);
    sim.settle(3);
    assertThat(high.getStatus().phase).isEqualTo(Phase.Pending);
    assertThat(job.getStatus().transition).isNull();
    assertThat(sim.reconcile(job, false).wakeAt()).as("it looks again when its minimum runtime is over")
        .isEqualTo(until);
    assertThat(high.getStatus().conditions).filteredOn(c -> c.getType().equals(Conditions.ADMITTED)).singleElement()
        .satisfies(c -> {
          assertThat(c.getReason()).isEqualTo("InsufficientGPUs");
          assertThat(c.getMessage()).endsWith("; team-a/olmoe (until " + until + ") would make room but runs within"
              + " the minimum runtime of its PriorityClass (ballast.dev/min-runtime-seconds)");
        });

    sim.now = until.minusSeconds(1);
    sim.settle(3);
    assertThat(job.getStatus().transition).isNull();
    sim.now = until;
    sim.reconcile(job, false);
    assertThat(job.getStatus().transition.reason).isEqualTo("Preempted");
    assertThat(job.getStatus().transition.forJob).isEqualTo("team-a/high");
    sim.settle(8);
    assertThat(sim.live(high)).hasSize(2);
    assertThat(high.getStatus().phase).isEqualTo(Phase.Running);
  }

  /**
   * Runs the low-priority job (2..2) and {@code other} (at its workers.max) side by side; returns the job "high" of
   * class high and {@code workers} workers, not yet applied.
   */
  TrainingJob besideALowPriorityJob(TrainingJob other, int workers) {
    TrainingJob high = lowPriorityJobAndAWaitingOne("high");
    high.getSpec().workers.min = workers;
    high.getSpec().workers.max = workers;
    sim.jobs.remove(high);
    sim.jobs.add(other);
    sim.settle(6);
    assertThat(sim.live(job)).hasSize(2);
    assertThat(sim.live(other)).hasSize(other.getSpec().workers.max);
    return high;
  }

  @Test
  void twoLowerPriorityWorldsStopTogetherForAJobNeitherAloneMakesRoomFor() {
    sim.nodes("n0", "n1", "n2");
    TrainingJob small = TestJobs.job("small", 1, 1, 8);
    small.getSpec().template.getSpec().setPriorityClassName("low");
    TrainingJob high = besideALowPriorityJob(small, 3);

    sim.jobs.add(high);
    sim.settle(2);
    assertThat(job.getStatus().transition.reason).isEqualTo("Preempted");
    assertThat(small.getStatus().transition.reason).isEqualTo("Preempted");
    assertThat(WorldLifecycle.givingWayFor(high, sim.jobs, sim.now)).containsExactly("team-a/olmoe", "team-a/small");
    sim.settle(8);
    assertThat(sim.live(high)).hasSize(3);
    assertThat(sim.live(job)).isEmpty();
    assertThat(sim.live(small)).isEmpty();
    assertThat(job.getStatus().phase).isEqualTo(Phase.Pending);
    assertThat(small.getStatus().phase).isEqualTo(Phase.Pending);

    sim.podsOf(high).forEach(p -> sim.exit(p.getMetadata().getName(), 0));
    sim.settle(8);
    assertThat(sim.live(job)).hasSize(2);
    assertThat(sim.live(small)).hasSize(1);
    assertThat(job.getStatus().restarts + small.getStatus().restarts).isZero();
  }

  @Test
  void aLenderOfEqualPriorityGivesBackWhileALowerPriorityWorldStopsWhenOnlyBothTogetherMakeTheRoom() {
    sim.nodes("n0", "n1", "n2", "n3");
    TrainingJob elastic = TestJobs.job("elastic", 1, 2, 8);
    elastic.getSpec().template.getSpec().setPriorityClassName("high");
    TrainingJob high = besideALowPriorityJob(elastic, 3);

    sim.jobs.add(high);
    sim.settle(2);
    assertThat(elastic.getStatus().transition).as("its priority equals the waiting job's: it is not preempted")
        .satisfies(t -> {
          assertThat(t.reason).isEqualTo("Reclaimed");
          assertThat(t.workers).isEqualTo(1);
        });
    assertThat(job.getStatus().transition.reason).isEqualTo("Preempted");
    assertThat(WorldLifecycle.givingWayFor(high, sim.jobs, sim.now)).containsExactly("team-a/elastic", "team-a/olmoe");
    assertThat(WorldLifecycle.preemptingFor(high, sim.jobs, sim.now)).containsExactly("team-a/olmoe");
    assertThat(sim.reconcile(high, false).step()).as("a preemption among them names the wait")
        .isInstanceOfSatisfying(WorldStep.Wait.class, w -> assertThat(w.reason()).isEqualTo("AwaitingPreemption"));
    sim.settle(8);
    assertThat(sim.live(high)).hasSize(3);
    assertThat(sim.live(elastic)).hasSize(1);
    assertThat(sim.live(job)).isEmpty();
    assertThat(job.getStatus().restarts + elastic.getStatus().restarts).isZero();
  }

  @Test
  void aPreemptedJobLeavesTheRoomItFreedForGraceAndAMinuteAtMost() {
    sim.nodes("n0", "n1");
    TrainingJob high = lowPriorityJobAndAWaitingOne("high");
    sim.settle(1); // the high job finds no room
    sim.reconcile(job, false);
    assertThat(job.getStatus().transition.reason).isEqualTo("Preempted");
    assertThat(WorldLifecycle.preemptedFor(job, sim.jobs, sim.now)).contains("team-a/high");
    tick(job.getSpec().elastic.checkpointTimeoutSeconds + 59);
    assertThat(WorldLifecycle.preemptedFor(job, sim.jobs, sim.now)).contains("team-a/high");
    tick(1);
    assertThat(WorldLifecycle.preemptedFor(job, sim.jobs, sim.now)).isEmpty();
    assertThat(WorldLifecycle.givingWayFor(high, sim.jobs, sim.now)).as("nor is the waiting job held longer").isEmpty();
  }

  @Test
  void growthDoesNotYieldToAJobNoClusterOfTheseNodesCouldHold() {
    sim.nodes("n0", "n1");
    runWorld();
    waitingJob("huge", 3, 3);
    java.util.function.Supplier<List<String>> yieldsTo = () -> WorldLifecycle.jobsToYieldTo(job, sim.jobs,
        sim.nodes.values().stream().map(NodeState::node).toList());
    assertThat(yieldsTo.get()).as("3 workers would not fit 2 empty nodes").isEmpty();
    sim.nodes("n2");
    assertThat(yieldsTo.get()).as("they would fit 3").containsExactly("team-a/huge");
  }

  @Test
  void growthDoesNotYieldToAJobWaitingForNodesItCannotUse() {
    sim.nodes("n0", "n1");
    runWorld();
    TrainingJob other = TestJobs.job("elsewhere", 3, 3, 8);
    other.getSpec().template.getSpec().setNodeSelector(java.util.Map.of("pool", "other"));
    sim.jobs.add(other);
    sim.settle(2);
    assertThat(other.getStatus().phase).isEqualTo(Phase.Pending);
    assertThat(WorldLifecycle.waitingForRoom(other)).isTrue();
    sim.nodes("n2");
    tick(60);
    assertThat(sim.reconcile(job, false).step()).as("no node of this job's could serve the waiting one")
        .isInstanceOfSatisfying(WorldStep.Transition.class,
            t -> assertThat(t.transition().reason).isEqualTo("CapacityAvailable"));
  }

  @Test
  void growthYieldsToAJobWaitingForTheQuotaOfItsOwnNamespaceOnly() {
    var nodes = List.of(new dev.ballast.operator.placement.GpuNode("n0", new dev.ballast.operator.placement.Resources(
        java.util.Map.of("nvidia.com/gpu", 8L, "cpu", 64_000L, "memory", 1L << 40, "ephemeral-storage", 1L << 40,
            "pods", 110L)), true, false, List.of(), "d0", "r0", java.util.Map.of()));
    TrainingJob ours = waitingFor("ours", "team-a", NamespaceQuota.EXCEEDS_QUOTA);
    TrainingJob theirs = waitingFor("theirs", "team-b", NamespaceQuota.EXCEEDS_QUOTA);
    TrainingJob room = waitingFor("room", "team-b", "InsufficientGPUs");
    assertThat(WorldLifecycle.waitingForQuota(ours)).isTrue();
    assertThat(WorldLifecycle.waitingForRoom(ours)).as("not for room: no job elsewhere yields to it").isFalse();
    assertThat(WorldLifecycle.jobsToYieldTo(job, List.of(job, ours, theirs, room), nodes))
        .containsExactly("team-a/ours", "team-b/room");
  }

  static TrainingJob waitingFor(String name, String namespace, String reason) {
    TrainingJob waiting = TestJobs.job(name, 1, 1, 8);
    waiting.getMetadata().setNamespace(namespace);
    waiting.setStatus(new dev.ballast.operator.api.TrainingJobStatus());
    waiting.getStatus().phase = Phase.Pending;
    waiting.getStatus().conditions.add(new io.fabric8.kubernetes.api.model.ConditionBuilder().withType("Admitted")
        .withStatus("False").withReason(reason).build());
    return waiting;
  }

  @Test
  void aJobShortOfCpuSaysSoAndCountsAsWaitingForRoom() {
    sim.nodes("n0", "n1");
    job.getSpec().template.getSpec().getContainers().get(0).setResources(new io.fabric8.kubernetes.api.model
        .ResourceRequirementsBuilder().addToRequests("cpu", new io.fabric8.kubernetes.api.model.Quantity("2000")).build());
    sim.settle(2);
    assertThat(job.getStatus().phase).isEqualTo(Phase.Pending);
    assertThat(condition(Conditions.ADMITTED)).hasValueSatisfying(c -> {
      assertThat(c.getReason()).isEqualTo("InsufficientCPU");
      assertThat(c.getMessage()).contains("cpu");
    });
    assertThat(WorldLifecycle.waitingForRoom(job)).isTrue();
  }

  @Test
  void everyWorldHoldsWholeExpertTimesPipelineGroups() {
    job.getSpec().parallelism = new ParallelismSpec(8, 2); // 16 GPUs per group: an even number of workers
    job.getSpec().workers.max = 6;
    sim.nodes("n0", "n1", "n2");
    runWorld();
    assertThat(job.getStatus().world.nodes).hasSize(2);
    sim.nodes("n3");
    tick(60);
    sim.settle(8);
    assertThat(job.getStatus().world.nodes).hasSize(4);
  }

  @Test
  void loweringWorkersMaxShrinksAtOnceAndObservedGenerationWaitsForTheNewWorld() {
    sim.nodes("n0", "n1", "n2", "n3");
    runWorld();
    job.getSpec().workers.max = 2;
    job.getMetadata().setGeneration(2L);
    var d = sim.reconcile(job, false);
    assertThat(d.step()).isInstanceOfSatisfying(WorldStep.Transition.class, t -> {
      assertThat(t.transition().reason).isEqualTo("WorkersChanged");
      assertThat(t.transition().workers).isEqualTo(2);
    });
    assertThat(job.getStatus().observedGeneration).isEqualTo(1L);
    sim.settle(6);
    assertThat(job.getStatus().world.nodes).hasSize(2);
    assertThat(job.getStatus().observedGeneration).isEqualTo(2L);
  }

  @Test
  void raisingWorkersMinWithoutRoomKeepsTheWorldRunningAndSaysWhyThenGrowsWhenRoomAppears() {
    sim.nodes("n0", "n1");
    runWorld();
    job.getSpec().workers.min = 3;
    job.getMetadata().setGeneration(2L);
    var d = sim.reconcile(job, false);
    assertThat(d.step()).isInstanceOf(WorldStep.Run.class);
    assertThat(d.specInEffect()).isFalse();
    assertThat(job.getStatus().observedGeneration).isEqualTo(1L);
    assertThat(condition(Conditions.RESIZING)).hasValueSatisfying(c -> {
      assertThat(c.getReason()).isEqualTo("WaitingForRoom");
      assertThat(c.getMessage()).contains("spec.workers.min is 3 but world 1 has 2 workers and only 2 fit");
    });
    sim.nodes("n2");
    var grow = sim.reconcile(job, false);
    assertThat(grow.step()).as("below min: no cooldown").isInstanceOf(WorldStep.Transition.class);
    sim.settle(6);
    assertThat(job.getStatus().world.nodes).hasSize(3);
    assertThat(job.getStatus().observedGeneration).isEqualTo(2L);
  }

  @Test
  void aTemplateEditAppliesAtTheNextWorldWhichItTriggersVisibly() {
    sim.nodes("n0", "n1");
    runWorld();
    job.getSpec().template.getSpec().getContainers().get(0).setImage("registry.example/trainer:2.0");
    job.getMetadata().setGeneration(2L);
    var d = sim.reconcile(job, false);
    assertThat(d.step()).isInstanceOfSatisfying(WorldStep.Transition.class,
        t -> assertThat(t.transition().reason).isEqualTo("SpecChanged"));
    assertThat(condition(Conditions.RESIZING)).hasValueSatisfying(c -> assertThat(c.getReason()).isEqualTo("SpecChanged"));
    sim.settle(6);
    assertThat(sim.live(job)).allSatisfy(p -> assertThat(p.getSpec().getContainers().get(0).getImage())
        .isEqualTo("registry.example/trainer:2.0"));
    assertThat(job.getStatus().observedGeneration).isEqualTo(2L);
  }

  @Test
  void liveFieldsApplyWithoutANewWorld() {
    sim.nodes("n0", "n1");
    runWorld();
    job.getSpec().restartLimit = 9;
    job.getSpec().recovery.backoffSeconds = 3;
    job.getMetadata().setGeneration(2L);
    var d = sim.reconcile(job, false);
    assertThat(d.step()).isInstanceOf(WorldStep.Run.class);
    assertThat(job.getStatus().observedGeneration).isEqualTo(2L);
  }

  @Test
  void aCordonedNodeIsDrainedByAVoluntaryResize() {
    sim.nodes("n0", "n1", "n2");
    job.getSpec().workers.max = 2;
    runWorld();
    String node = sim.pods.get("olmoe-g1-w0").getSpec().getNodeName();
    sim.cordon(node);
    var d = sim.reconcile(job, false);
    assertThat(d.step()).isInstanceOfSatisfying(WorldStep.Transition.class, t -> {
      assertThat(t.countsAsRestart()).isFalse();
      assertThat(t.transition().reason).isEqualTo("NodeDrained");
      assertThat(t.transition().message).contains("node " + node + " is cordoned");
    });
    sim.settle(6);
    assertThat(job.getStatus().world.nodes).extracting(n -> n.node).doesNotContain(node);
  }

  @Test
  void theNodeControllersReadinessTaintsAreNoDrain() {
    sim.nodes("n0", "n1", "n2");
    job.getSpec().workers.max = 2;
    runWorld();
    String node = sim.pods.get("olmoe-g1-w1").getSpec().getNodeName();
    sim.notReady(node);
    sim.taint(node, new Taint("node.kubernetes.io/not-ready", null, Taint.NO_SCHEDULE));
    sim.taint(node, new Taint("node.kubernetes.io/unreachable", null, Taint.NO_EXECUTE));
    assertThat(sim.reconcile(job, false).step()).as("NotReady within the grace period").isInstanceOf(WorldStep.Run.class);
    sim.recover(node); // Ready again; the controller removes its taints a moment later
    assertThat(sim.reconcile(job, false).step()).as("Ready again, the taints not yet removed")
        .isInstanceOf(WorldStep.Run.class);
    assertThat(generation()).isEqualTo(1L);
  }

  @Test
  void whileAWorldWaitsForBindingAdmittedSaysWhatTheSchedulerSays() {
    sim.nodes("n0", "n1");
    job.getSpec().workers.max = 2;
    sim.reconcile(job, false); // place
    sim.reconcile(job, false); // release; nothing binds
    String says = "0/8 nodes are available: 1 Insufficient nvidia.com/gpu, 7 node(s) didn't match Pod's node affinity.";
    sim.pods.get("olmoe-g1-w1").setStatus(new PodStatusBuilder().withPhase("Pending").addToConditions(
        new PodConditionBuilder().withType("PodScheduled").withStatus("False").withReason("Unschedulable")
            .withMessage(says).build()).build());
    assertThat(sim.reconcile(job, false).step()).isInstanceOfSatisfying(WorldStep.AwaitBinding.class,
        a -> assertThat(a.schedulerSays()).isEqualTo(says));
    assertThat(condition(Conditions.ADMITTED).orElseThrow().getMessage()).startsWith("0 of 2 workers of world 1 are"
        + " bound; waiting until ").endsWith("; the scheduler says: " + says);
  }

  /** Places, releases and lets the gang time out unbound (no kubelet runs), twice, on {@code nodes}. */
  void twoBindingTimeoutsOn(String nodes) {
    job.getSpec().admissionTimeoutSeconds = 30;
    for (int round = 1; round <= 2; round++) {
      sim.reconcile(job, false); // place
      sim.reconcile(job, false); // release; nothing binds
      tick(31);
      assertThat(sim.reconcile(job, false).step()).isInstanceOfSatisfying(WorldStep.RollBack.class, r -> {
        assertThat(r.reason()).isEqualTo("BindingTimeout");
        assertThat(r.nodes()).isEqualTo(nodes);
      });
    }
  }

  List<String> promisedNodes() {
    return sim.live(job).stream().map(p -> p.getMetadata().getAnnotations().get(Labels.ASSIGNED_NODE)).sorted().toList();
  }

  @Test
  void twoIdenticalBindingTimeoutsMakeAdmissionBackOff() {
    sim.nodes("n0", "n1");
    twoBindingTimeoutsOn("n0,n1");
    assertThat(job.getStatus().bindingBackoff.timeouts).isEqualTo(2);
    var wait = sim.reconcile(job, false);
    assertThat(wait.step()).isInstanceOfSatisfying(WorldStep.Wait.class,
        w -> assertThat(w.reason()).isEqualTo("BindingBackoff"));
    tick(20);
    assertThat(sim.reconcile(job, false).step()).isInstanceOf(WorldStep.Place.class);
    assertThat(promisedNodes()).as("no other nodes: the same placement once more").containsExactly("n0", "n1");
  }

  @Test
  void afterTwoIdenticalBindingTimeoutsAdmissionPlacesTheGangElsewhereWhenItFits() {
    sim.nodes("n0", "n1", "n2", "n3");
    job.getSpec().workers.max = 2;
    twoBindingTimeoutsOn("n0,n1");
    tick(20);
    assertThat(sim.reconcile(job, false).step()).isInstanceOf(WorldStep.Place.class);
    assertThat(promisedNodes()).containsExactly("n2", "n3");
  }

  @Test
  void belowMinForLongerThanTheTimeoutFailsTheJob() {
    sim.nodes("n0");
    job.getSpec().elastic.belowMinTimeoutSeconds = 600;
    sim.settle(2);
    assertThat(job.getStatus().phase).isEqualTo(Phase.Pending);
    tick(600);
    var d = sim.reconcile(job, false);
    assertThat(d.step()).isInstanceOfSatisfying(WorldStep.Finish.class, f -> {
      assertThat(f.reason()).isEqualTo("BelowMinTimeout");
      assertThat(f.message()).contains("workers.min (2)").contains("600s");
    });
  }

  @Test
  void waitingForItsNamespaceQuotaCountsTowardsTheBelowMinTimeout() {
    sim.nodes("n0");
    job.getSpec().elastic.belowMinTimeoutSeconds = 600;
    sim.settle(2);
    job.getStatus().conditions.stream().filter(c -> Conditions.ADMITTED.equals(c.getType())).findFirst().orElseThrow()
        .setReason(dev.ballast.operator.admission.NamespaceQuota.EXCEEDS_QUOTA);
    tick(600);
    assertThat(sim.reconcile(job, false).step()).isInstanceOfSatisfying(WorldStep.Finish.class,
        f -> assertThat(f.reason()).isEqualTo("BelowMinTimeout"));
  }

  @Test
  void aJobActiveForItsDeadlineFailsWithTheCheckpointGraceAndTimeSuspendedDoesNotCount() {
    sim.nodes("n0", "n1");
    job.getSpec().activeDeadlineSeconds = 600;
    runWorld();
    java.time.Instant started = java.time.Instant.parse(job.getStatus().startTime);
    assertThat(sim.reconcile(job, false).wakeAt()).as("woken at the deadline").isEqualTo(started.plusSeconds(600));

    sim.now = started.plusSeconds(500);
    job.getSpec().suspend = true;
    sim.settle(2);
    assertThat(job.getStatus().phase).isEqualTo(Phase.Suspended);
    assertThat(job.getStatus().startTime).isNull();
    tick(3600);
    job.getSpec().suspend = false;
    sim.settle(6);
    assertThat(job.getStatus().phase).isEqualTo(Phase.Running);
    java.time.Instant resumed = java.time.Instant.parse(job.getStatus().startTime);
    assertThat(resumed).as("the count starts again when the resumed job runs")
        .isAfterOrEqualTo(started.plusSeconds(4100));

    sim.now = resumed.plusSeconds(599);
    assertThat(sim.reconcile(job, false).step()).isInstanceOf(WorldStep.Run.class);
    job.getSpec().activeDeadlineSeconds = 300; // applies live
    var d = sim.reconcile(job, false);
    assertThat(d.step()).isInstanceOfSatisfying(WorldStep.Finish.class, f -> {
      assertThat(f.succeeded()).isFalse();
      assertThat(f.reason()).isEqualTo("DeadlineExceeded");
      assertThat(f.message()).isEqualTo("active for 300 s since " + resumed + " (spec.activeDeadlineSeconds); its"
          + " workers are stopped");
    });
    assertThat(d.stop()).hasSize(2);
    assertThat(d.stopGraceSeconds()).as("the trainers checkpoint").isEqualTo(120);
    sim.settle(2);
    assertThat(job.getStatus().phase).isEqualTo(Phase.Failed);
    assertThat(sim.live(job)).isEmpty();
    assertThat(condition("Failed")).hasValueSatisfying(c -> assertThat(c.getReason()).isEqualTo("DeadlineExceeded"));
  }

  @Test
  void aWorldWithoutStepsPastTheProgressDeadlineIsReportedThenRestarted() {
    sim.nodes("n0", "n1");
    job.getSpec().recovery.progressDeadlineSeconds = 120;
    job.getSpec().recovery.onNoProgress = RecoverySpec.OnNoProgress.REPORT;
    runWorld();
    tick(100);
    job.getStatus().balancer = new BalancerStatusSchema();
    job.getStatus().balancer.lastStepGeneration = 1L;
    job.getStatus().balancer.lastStep = 7L;
    job.getStatus().balancer.lastStepTime = sim.now.toString();
    tick(100);
    var fine = sim.reconcile(job, false);
    assertThat(fine.step()).isInstanceOf(WorldStep.Run.class);
    assertThat(fine.wakeAt()).isEqualTo(sim.now.plusSeconds(20));
    assertThat(condition(Conditions.PROGRESSING)).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("True"));
    tick(20);
    sim.reconcile(job, false);
    assertThat(condition(Conditions.PROGRESSING)).hasValueSatisfying(c -> {
      assertThat(c.getStatus()).isEqualTo("False");
      assertThat(c.getReason()).isEqualTo("NoProgress");
    });
    job.getSpec().recovery.onNoProgress = RecoverySpec.OnNoProgress.RESTART;
    assertThat(sim.reconcile(job, false).step()).isInstanceOfSatisfying(WorldStep.Transition.class,
        t -> assertThat(t.transition().reason).isEqualTo("NoProgress"));
  }

  @Test
  void suspendStopsWithTheCheckpointGraceAndResumingStartsTheNextGenerationUncounted() {
    sim.nodes("n0", "n1");
    runWorld();
    job.getSpec().suspend = true;
    var d = sim.reconcile(job, false);
    assertThat(d.step()).isInstanceOf(WorldStep.Suspend.class);
    assertThat(d.stop()).hasSize(2);
    assertThat(d.stopGraceSeconds()).isEqualTo(120);
    sim.settle(2);
    assertThat(job.getStatus().phase).isEqualTo(Phase.Suspended);
    job.getSpec().suspend = false;
    sim.settle(6);
    assertThat(generation()).isEqualTo(2L);
    assertThat(job.getStatus().restarts).isZero();
    assertThat(job.getStatus().phase).isEqualTo(Phase.Running);
  }

  @Test
  void anOperatorCrashAfterDecidingARestartRedecidesItAndCountsItOnce() {
    sim.nodes("n0", "n1");
    runWorld();
    sim.exit("olmoe-g1-w0", 137);
    var lost = sim.reconcile(job, true); // decided, but the status write never happened
    var again = sim.reconcile(job, false);
    assertThat(again.step()).usingRecursiveComparison().isEqualTo(lost.step());
    assertThat(job.getStatus().restarts).isEqualTo(1);
    sim.reconcile(job, true); // stopped the world, status not written
    sim.reconcile(job, false);
    assertThat(job.getStatus().restarts).isEqualTo(1);
    tick(10);
    sim.settle(6);
    assertThat(generation()).isEqualTo(2L);
    assertThat(job.getStatus().restarts).isEqualTo(1);
  }

  @Test
  void podsOfTheNextWorldNeverCoexistWithLivePodsOfTheCurrentOne() {
    sim.nodes("n0", "n1", "n2", "n3");
    job.getSpec().workers.max = 2;
    runWorld();
    sim.exit("olmoe-g1-w0", 137);
    sim.reconcile(job, false); // transition recorded
    // a stale reconcile created pods of world 2 while world 1 still runs
    Pod stray = io.fabric8.kubernetes.client.utils.Serialization.clone(sim.pods.get("olmoe-g1-w1"));
    stray.getMetadata().setName("olmoe-g2-w0");
    stray.getMetadata().getLabels().put(Labels.WORLD_GENERATION, "2");
    stray.setStatus(null);
    sim.pods.put("olmoe-g2-w0", stray);
    var d = sim.reconcile(job, false);
    assertThat(d.step()).isInstanceOfSatisfying(WorldStep.RollBack.class,
        r -> assertThat(r.reason()).isEqualTo("MixedWorld"));
    // the stray is bound, so it may have started: generation 2 is retired before it is deleted
    assertThat(job.getStatus().retiredGeneration).isEqualTo(2L);
    assertThat(sim.reconcile(job, false).stop()).extracting(p -> p.getMetadata().getName()).contains("olmoe-g2-w0");
  }

  @Test
  void aWorkerWhoseContainerCannotStartIsNamedInReadyUntilItRuns() {
    sim.nodes("n0", "n1");
    job.getSpec().workers.max = 2;
    sim.reconcile(job, false);
    sim.reconcile(job, false);
    sim.kubelets();
    assertThat(sim.reconcile(job, false).step()).isInstanceOf(WorldStep.Commit.class);
    sim.pods.get("olmoe-g1-w0").setStatus(new PodStatusBuilder().withPhase("Running").build());
    sim.pods.get("olmoe-g1-w1").setStatus(new PodStatusBuilder().withPhase("Pending")
        .addNewInitContainerStatus().withName("sidecar").withNewState().withNewWaiting().withReason("PodInitializing")
        .endWaiting().endState().endInitContainerStatus()
        .addNewContainerStatus().withName("trainer").withNewState().withNewWaiting().withReason("ImagePullBackOff")
        .withMessage("Back-off pulling image \"registry.example/trainer:typo\"").endWaiting().endState()
        .endContainerStatus().build());

    var d = sim.reconcile(job, false);
    assertThat(d.step()).isInstanceOfSatisfying(WorldStep.Run.class, r -> assertThat(r.ready()).isEqualTo(1));
    Condition ready = condition(Conditions.READY).orElseThrow();
    assertThat(ready.getReason()).isEqualTo("ContainerWaiting");
    assertThat(ready.getMessage()).isEqualTo("1 of 2 workers are running; pod olmoe-g1-w1, container trainer:"
        + " ImagePullBackOff (Back-off pulling image \"registry.example/trainer:typo\")");
    assertThat(job.getStatus().phase).isEqualTo(Phase.Admitted);
    assertThat(StatusReason.of(job.getStatus())).as("kubectl get tj's REASON column").isEqualTo("ContainerWaiting");

    sim.kubelets(); // the image is fixed in the registry: the pull succeeds
    sim.reconcile(job, false);
    assertThat(job.getStatus().phase).isEqualTo(Phase.Running);
    assertThat(condition(Conditions.READY).orElseThrow().getReason()).isEqualTo("AllWorkersRunning");
  }

  @Test
  void aWorldWhoseWorkersDoNotAllRunWithinTheStartupTimeoutRestarts() {
    sim.nodes("n0", "n1");
    job.getSpec().workers.max = 2;
    job.getSpec().recovery.startupTimeoutSeconds = 30;
    sim.reconcile(job, false);
    sim.reconcile(job, false);
    sim.kubelets();
    assertThat(sim.reconcile(job, false).step()).isInstanceOf(WorldStep.Commit.class);
    var committed = sim.now;
    sim.pods.get("olmoe-g1-w0").setStatus(new PodStatusBuilder().withPhase("Running").build());
    sim.pods.get("olmoe-g1-w1").setStatus(new PodStatusBuilder().withPhase("Pending")
        .addNewContainerStatus().withName("trainer").withNewState().withNewWaiting().withReason("ImagePullBackOff")
        .endWaiting().endState().endContainerStatus().build());
    tick(10);
    var waiting = sim.reconcile(job, false);
    assertThat(waiting.step()).isInstanceOf(WorldStep.Run.class);
    assertThat(waiting.wakeAt()).as("woken at the timeout").isEqualTo(committed.plusSeconds(30));

    tick(20);
    assertThat(sim.reconcile(job, false).step()).isInstanceOfSatisfying(WorldStep.Transition.class, t -> {
      assertThat(t.countsAsRestart()).isTrue();
      assertThat(t.transition().reason).isEqualTo("StartupTimeout");
      assertThat(t.transition().message).isEqualTo("the workers of world 1 did not all run within 30s of its commit"
          + " (spec.recovery.startupTimeoutSeconds): 1 of 2 workers are running; pod olmoe-g1-w1, container trainer:"
          + " ImagePullBackOff");
    });
    tick(10); // the restart's backoff
    sim.settle(8);
    assertThat(job.getStatus().phase).isEqualTo(Phase.Running);
    assertThat(generation()).isEqualTo(2L);
    tick(60);
    sim.reconcile(job, false);
    assertThat(job.getStatus().phase).as("a world that ran is past its startup").isEqualTo(Phase.Running);
    assertThat(job.getStatus().restarts).isEqualTo(1);
  }

  @Test
  void aWorldReleasedInPartBeforeARestartReleasesOnlyItsGatedPods() {
    sim.nodes("n0", "n1");
    job.getSpec().workers.max = 2;
    sim.reconcile(job, false);
    Pod released = sim.pods.get("olmoe-g1-w0"); // the operator released w0, then died before w1
    String releasedAt = sim.now.minusSeconds(5).toString();
    released.getSpec().setSchedulingGates(List.of());
    released.getMetadata().getAnnotations().put(Labels.RELEASED_AT, releasedAt);
    var d = sim.reconcile(job, false);
    assertThat(d.step()).isInstanceOfSatisfying(WorldStep.Release.class,
        r -> assertThat(r.gated()).as("only w1 is written").containsExactly(1));
    assertThat(released.getMetadata().getAnnotations().get(Labels.RELEASED_AT)).as("w0's release time stays")
        .isEqualTo(releasedAt);
    sim.kubelets();
    assertThat(sim.reconcile(job, false).step()).isInstanceOf(WorldStep.Commit.class);
  }

  @Test
  void aGangRolledBackAfterItsReleaseRetiresItsGenerationFirstAndTheNextWorldNeverReusesIt() {
    sim.nodes("n0", "n1");
    job.getSpec().workers.max = 2;
    assertThat(sim.reconcile(job, false).step()).isEqualTo(new WorldStep.Place(1, job.getSpec().workers.max));
    assertThat(sim.reconcile(job, false).step()).isInstanceOf(WorldStep.Release.class);
    sim.kubelets(); // bound and started; the commit is never written (the operator died, say)
    sim.exit("olmoe-g1-w0", 137);

    var rollBack = sim.reconcile(job, true); // decided, status lost: decided the same way again
    var retire = sim.reconcile(job, false);
    assertThat(retire.step()).usingRecursiveComparison().isEqualTo(rollBack.step());
    assertThat(retire.step()).isInstanceOfSatisfying(WorldStep.RollBack.class, r -> {
      assertThat(r.reason()).isEqualTo("WorkerFailed");
      assertThat(r.retires()).isEqualTo(1L);
    });
    assertThat(retire.stop()).as("nothing is deleted before the retirement is recorded").isEmpty();
    assertThat(job.getStatus().retiredGeneration).isEqualTo(1L);

    var stopping = sim.reconcile(job, false);
    assertThat(stopping.step()).isEqualTo(new WorldStep.Stopping(1, 1));
    assertThat(stopping.stop()).extracting(p -> p.getMetadata().getName())
        .containsExactlyInAnyOrder("olmoe-g1-w0", "olmoe-g1-w1");
    sim.kubelets();
    sim.settle(6);
    assertThat(job.getStatus().phase).isEqualTo(Phase.Running);
    assertThat(generation()).isEqualTo(2L);
    assertThat(names()).containsExactly("olmoe-g2-w0", "olmoe-g2-w1");
  }

  @Test
  void aGangRolledBackBeforeItsReleaseIsDeletedAtOnceAndItsGenerationAdmittedAgain() {
    sim.nodes("n0", "n1");
    job.getSpec().workers.max = 2;
    sim.reconcile(job, false); // placed: both pods exist, gated
    sim.pods.remove("olmoe-g1-w1"); // a half-created gang, as after an operator crash
    var d = sim.reconcile(job, false);
    assertThat(d.step()).isInstanceOfSatisfying(WorldStep.RollBack.class, r -> {
      assertThat(r.reason()).isEqualTo("IncompleteGang");
      assertThat(r.retires()).isZero();
    });
    assertThat(d.stop()).extracting(p -> p.getMetadata().getName()).containsExactly("olmoe-g1-w0");
    assertThat(job.getStatus().retiredGeneration).isNull();
    sim.settle(6);
    assertThat(generation()).isEqualTo(1L);
  }
}
