package dev.ballast.operator.world;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.api.WorldNode;
import dev.ballast.operator.api.WorldStatus;
import dev.ballast.operator.config.OperatorSettings;
import dev.ballast.operator.desired.Labels;
import dev.ballast.operator.desired.WorkerPods;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorldLifecycleTest {
  static final Instant NOW = Instant.parse("2026-12-02T12:00:00Z");
  final TrainingJob job = TestJobs.job("olmoe", 2, 4, 8);
  final World world = new World(1, List.of(new Seat(0, 0, "n0", "d0", "r0"), new Seat(1, 1, "n1", "d0", "r0")));

  List<Pod> pods(boolean gated) {
    List<Pod> pods = new ArrayList<>();
    for (Seat s : world.seats()) pods.add(WorkerPods.build(job, world, s, gated, OperatorSettings.defaults()));
    return pods;
  }

  static Pod bound(Pod p, String phase) {
    p.getSpec().setNodeName(p.getMetadata().getAnnotations().get(Labels.ASSIGNED_NODE));
    p.setStatus(new PodStatusBuilder().withPhase(phase).build());
    return p;
  }

  static Pod released(Pod p, Instant at) {
    p.getSpec().setSchedulingGates(List.of());
    p.getMetadata().getAnnotations().put(Labels.RELEASED_AT, at.toString());
    return p;
  }

  void commit() {
    job.setStatus(new TrainingJobStatus());
    job.getStatus().world = new WorldStatus(1, 8, List.of(new WorldNode(0, "olmoe-worker-0", "n0", 0, "d0", "r0"),
        new WorldNode(1, "olmoe-worker-1", "n1", 1, "d0", "r0")), null);
  }

  @Test
  void noPodsMeansPlaceTheNextGeneration() {
    assertThat(WorldLifecycle.decide(job, List.of(), NOW)).isEqualTo(new WorldStep.Place(1));
    commit();
    assertThat(WorldLifecycle.decide(job, List.of(), NOW)).isEqualTo(new WorldStep.Place(2));
  }

  @Test
  void aCompleteGatedGangIsReleasedTogether() {
    var step = WorldLifecycle.decide(job, pods(true), NOW);
    assertThat(step).isInstanceOf(WorldStep.Release.class);
    assertThat(((WorldStep.Release) step).gated()).hasSize(2);
  }

  @Test
  void anIncompleteGangIsRolledBackNotReleased() {
    var step = WorldLifecycle.decide(job, pods(true).subList(0, 1), NOW);
    assertThat(step).isInstanceOfSatisfying(WorldStep.RollBack.class,
        r -> assertThat(r.message()).contains("only 1 of 2 worker pods"));
  }

  @Test
  void releasedButUnboundWaitsUntilTheTimeoutThenRollsBack() {
    List<Pod> pods = pods(true);
    pods.forEach(p -> released(p, NOW.minusSeconds(10)));
    bound(pods.get(0), "Pending");
    var waiting = WorldLifecycle.decide(job, pods, NOW);
    assertThat(waiting).isInstanceOfSatisfying(WorldStep.AwaitBinding.class, a -> {
      assertThat(a.bound()).isEqualTo(1);
      assertThat(a.deadline()).isEqualTo(NOW.minusSeconds(10).plusSeconds(300));
    });
    var late = WorldLifecycle.decide(job, pods, NOW.plusSeconds(300));
    assertThat(late).isInstanceOfSatisfying(WorldStep.RollBack.class, r -> {
      assertThat(r.reason()).isEqualTo("BindingTimeout");
      assertThat(r.message()).contains("1 of 2 workers were not bound within 300s").contains("olmoe-worker-1");
      assertThat(r.pods()).hasSize(2);
    });
  }

  @Test
  void allBoundCommitsTheWorldInRankOrder() {
    List<Pod> pods = pods(true);
    pods.forEach(p -> bound(released(p, NOW), "Pending"));
    assertThat(WorldLifecycle.decide(job, pods, NOW)).isEqualTo(new WorldStep.Commit(world));
  }

  @Test
  void aCommittedWorldCountsRunningWorkers() {
    commit();
    List<Pod> pods = pods(false);
    bound(pods.get(0), "Running");
    bound(pods.get(1), "Pending");
    assertThat(WorldLifecycle.decide(job, pods, NOW)).isEqualTo(new WorldStep.Run(world, 1));
  }

  @Test
  void aDeletedPodOfACommittedWorldIsRecreatedOnItsNode() {
    commit();
    List<Pod> pods = pods(false);
    bound(pods.get(0), "Running");
    var step = WorldLifecycle.decide(job, List.of(pods.get(0)), NOW);
    assertThat(step).isEqualTo(new WorldStep.Recreate(world, List.of(world.seats().get(1))));
  }

  @Test
  void oneFailedWorkerFailsTheJobAndStopsTheOthers() {
    commit();
    List<Pod> pods = pods(false);
    bound(pods.get(0), "Running");
    Pod failed = bound(pods.get(1), "Failed");
    failed.getStatus().setContainerStatuses(List.of(new ContainerStatusBuilder().withName("trainer")
        .withNewState().withNewTerminated().withExitCode(3).withReason("Error").endTerminated().endState().build()));
    var step = WorldLifecycle.decide(job, pods, NOW);
    assertThat(step).isInstanceOfSatisfying(WorldStep.Finish.class, f -> {
      assertThat(f.succeeded()).isFalse();
      assertThat(f.message()).isEqualTo("worker olmoe-worker-1 on node n1: container trainer exited with code 3 (Error)");
      assertThat(f.toDelete()).extracting(p -> p.getMetadata().getName()).containsExactly("olmoe-worker-0");
    });
  }

  @Test
  void everyWorkerSucceededSucceedsTheJob() {
    commit();
    List<Pod> pods = pods(false);
    pods.forEach(p -> bound(p, "Succeeded"));
    assertThat(WorldLifecycle.decide(job, pods, NOW))
        .isInstanceOfSatisfying(WorldStep.Finish.class, f -> assertThat(f.succeeded()).isTrue());
  }

  @Test
  void suspendDeletesUnfinishedWorkersAndEndedJobsAreLeftAlone() {
    job.getSpec().suspend = true;
    var step = WorldLifecycle.decide(job, pods(true), NOW);
    assertThat(step).isInstanceOfSatisfying(WorldStep.Suspend.class, s -> assertThat(s.toDelete()).hasSize(2));
    job.getSpec().suspend = false;
    job.setStatus(new TrainingJobStatus());
    job.getStatus().phase = TrainingJobStatus.Phase.Succeeded;
    assertThat(WorldLifecycle.decide(job, pods(true), NOW)).isInstanceOf(WorldStep.Ended.class);
  }

  @Test
  void aNewWorldWaitsUntilOldWorkersHaveTerminated() {
    List<Pod> pods = pods(true);
    pods.forEach(p -> p.getMetadata().setDeletionTimestamp(NOW.toString()));
    assertThat(WorldLifecycle.decide(job, pods, NOW)).isEqualTo(new WorldStep.Draining(2));
  }
}
