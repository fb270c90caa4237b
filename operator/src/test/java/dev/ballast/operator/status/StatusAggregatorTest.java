package dev.ballast.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.admission.GangAdmission;
import dev.ballast.operator.api.BalancerStatusSchema;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.api.TrainingJobStatus.Phase;

import dev.ballast.operator.api.WorldTransition;
import dev.ballast.operator.world.Decision;
import dev.ballast.operator.world.Seat;
import dev.ballast.operator.world.World;
import dev.ballast.operator.world.WorldStep;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatusAggregatorTest {
  static final Instant T0 = Instant.parse("2026-12-02T12:00:00Z");
  final TrainingJob job = TestJobs.job("olmoe", 2, 4, 8);
  final World world = new World(1, List.of(new Seat(0, 0, "n0", "d0", "r0"), new Seat(1, 1, "n1", "d0", "r1")));

  static Decision d(WorldStep step) {
    return new Decision(step, List.of(), null, List.of(), null, true);
  }

  static Condition condition(List<Condition> conditions, String type) {
    return conditions.stream().filter(c -> c.getType().equals(type)).findFirst().orElseThrow();
  }

  @Test
  void unschedulableJobIsPendingWithTheReasonInNumbers() {
    var s = StatusAggregator.aggregate(job, d(new WorldStep.Place(1, 4)),
        new GangAdmission.Result.Unschedulable("InsufficientGPUs", "needs 2 workers × 8 GPUs; only 1 node has 8 free GPUs"), T0);
    assertThat(s.phase).isEqualTo(Phase.Pending);
    assertThat(s.observedGeneration).isEqualTo(1L);
    Condition admitted = condition(s.conditions, Conditions.ADMITTED);
    assertThat(admitted.getStatus()).isEqualTo("False");
    assertThat(admitted.getReason()).isEqualTo("InsufficientGPUs");
    assertThat(admitted.getMessage()).contains("only 1 node has 8 free GPUs");
    assertThat(admitted.getObservedGeneration()).isEqualTo(1L);
  }

  @Test
  void aWorkerPodTheApiServerRefusesLeavesTheJobPendingWithTheServersMessage() {
    String server = "pods \"olmoe-g1-w0\" is forbidden: violates PodSecurity \"restricted:latest\": "
        + "allowPrivilegeEscalation != false (container \"trainer\" must set securityContext.allowPrivilegeEscalation=false)";
    var s = StatusAggregator.aggregate(job, d(new WorldStep.Place(1, 4)),
        new GangAdmission.Result.Refused("olmoe-g1-w0", server), T0);
    assertThat(s.phase).isEqualTo(Phase.Pending);
    assertThat(s.desiredWorkers).isZero();
    Condition admitted = condition(s.conditions, Conditions.ADMITTED);
    assertThat(admitted.getStatus()).isEqualTo("False");
    assertThat(admitted.getReason()).isEqualTo(StatusAggregator.PODS_REFUSED);
    assertThat(admitted.getMessage()).contains(server).contains("spec.template");
  }

  @Test
  void commitRecordsTheWorldThenRunningWhenAllWorkersRun() {
    var committed = StatusAggregator.aggregate(job, d(new WorldStep.Commit(world)), null, T0);
    assertThat(committed.world.generation).isEqualTo(1L);
    assertThat(committed.world.gpus).isEqualTo(16);
    assertThat(committed.world.nodes).extracting(n -> n.pod + "@" + n.node + "/" + n.rack)
        .containsExactly("olmoe-g1-w0@n0/r0", "olmoe-g1-w1@n1/r1");
    assertThat(condition(committed.conditions, Conditions.ADMITTED).getStatus()).isEqualTo("True");

    job.setStatus(committed);
    var partly = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 1, List.of())), null, T0.plusSeconds(5));
    assertThat(partly.phase).isEqualTo(Phase.Admitted);
    assertThat(partly.readyWorkers).isEqualTo(1);
    assertThat(partly.desiredWorkers).isEqualTo(2);

    job.setStatus(partly);
    var running = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0.plusSeconds(9));
    assertThat(running.phase).isEqualTo(Phase.Running);
    assertThat(running.startTime).isEqualTo(T0.plusSeconds(9).toString());
    assertThat(condition(running.conditions, Conditions.READY).getStatus()).isEqualTo("True");
    // Admitted stayed True since the commit: its transition time did not move
    assertThat(condition(running.conditions, Conditions.ADMITTED).getLastTransitionTime()).isEqualTo(T0.toString());
  }

  @Test
  void aRepeatedStepProducesAnUnchangedStatusSoNothingIsWritten() {
    job.setStatus(StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0));
    var again = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0.plusSeconds(60));
    assertThat(StatusChange.changed(job, again)).isFalse();
  }

  @Test
  void theBalancersPartIsNeitherProducedNorComparedAgainst() {
    job.setStatus(StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0));
    job.getStatus().balancer = balancer("1.3", null);
    job.setStatus(StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0));
    job.getStatus().balancer = balancer("1.7", null);
    var next = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0);
    assertThat(next.balancer).isNull();
    assertThat(StatusChange.changed(job, next)).isFalse();
  }

  static BalancerStatusSchema balancer(String planVersion, String planError) {
    var b = new BalancerStatusSchema();
    b.planVersion = planVersion;
    b.planError = planError;
    return b;
  }

  @Test
  void aBalancerThatDoesNotRunIsNamedInBalancingAndTheReasonUntilItPlans() {
    job.setStatus(StatusAggregator.aggregate(job, d(new WorldStep.Commit(world)), null, T0));
    var running = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0);
    String refused = "its pod cannot be created (FailedCreate): pods \"olmoe-balancer-7d9\" is forbidden: exceeded quota";
    StatusAggregator.balancerPods(job, running, () -> java.util.Optional.of(refused), T0);
    Condition balancing = condition(running.conditions, Conditions.BALANCING);
    assertThat(balancing.getStatus()).isEqualTo("False");
    assertThat(balancing.getReason()).isEqualTo(StatusAggregator.BALANCER_NOT_RUNNING);
    assertThat(balancing.getMessage()).isEqualTo("the balancer is not running: " + refused
        + "; the workers train on the static expert layout until it plans");
    assertThat(condition(running.conditions, Conditions.READY).getStatus()).as("the workers run").isEqualTo("True");
    assertThat(StatusReason.of(running)).isEqualTo(StatusAggregator.BALANCER_NOT_RUNNING);

    job.setStatus(running);
    var started = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0.plusSeconds(5));
    StatusAggregator.balancerPods(job, started, java.util.Optional::empty, T0.plusSeconds(5));
    assertThat(condition(started.conditions, Conditions.BALANCING).getReason()).isEqualTo("BalancerStarting");

    job.setStatus(started);
    job.getStatus().balancer = balancer("1.0", null);
    var planning = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0.plusSeconds(9));
    StatusAggregator.balancerPods(job, planning, () -> java.util.Optional.of(refused), T0.plusSeconds(9));
    assertThat(condition(planning.conditions, Conditions.BALANCING).getReason()).as("it described the world")
        .isEqualTo("Planning");

    var fresh = TestJobs.job("fresh", 2, 4, 8);
    var quiet = StatusAggregator.aggregate(fresh, d(new WorldStep.Run(world, 2, List.of())), null, T0);
    StatusAggregator.balancerPods(fresh, quiet, java.util.Optional::empty, T0);
    assertThat(quiet.conditions).as("no problem ever: no condition").noneMatch(c -> c.getType().equals(Conditions.BALANCING));
  }

  @Test
  void aBalancerThatCannotPlanTheWorldMakesItNotReadyWithItsReason() {
    job.setStatus(StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0));
    assertThat(job.getStatus().conditions).as("nothing known of the balancer yet")
        .noneMatch(c -> c.getType().equals(Conditions.BALANCING));
    job.getStatus().balancer = balancer("0.4", "cannot plan world generation 0: stale");
    var stale = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0);
    assertThat(condition(stale.conditions, Conditions.READY).getStatus()).as("an error of another world").isEqualTo("True");

    String error = "cannot plan world generation 1: memoryBudgetBytes 10 is below the 4096 bytes per GPU the replicate"
        + " layout needs without any replica";
    job.getStatus().balancer = balancer("1.0", error);
    var broken = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0.plusSeconds(3));
    assertThat(broken.phase).as("the workers do run, on the static layout").isEqualTo(Phase.Running);
    Condition balancing = condition(broken.conditions, Conditions.BALANCING);
    assertThat(balancing.getStatus()).isEqualTo("False");
    assertThat(balancing.getReason()).isEqualTo("BalancerConfigError");
    assertThat(balancing.getMessage()).isEqualTo(error);
    Condition ready = condition(broken.conditions, Conditions.READY);
    assertThat(ready.getStatus()).isEqualTo("False");
    assertThat(ready.getReason()).isEqualTo("BalancerConfigError");
    assertThat(ready.getMessage()).contains("memoryBudgetBytes 10");
    job.setStatus(broken);
    job.getStatus().balancer = balancer("1.0", error);
    assertThat(StatusChange.changed(job, StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())),
        null, T0.plusSeconds(60)))).as("stable while the error stays").isFalse();

    job.getStatus().balancer = balancer("1.2", null);
    var fixed = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0.plusSeconds(90));
    assertThat(condition(fixed.conditions, Conditions.BALANCING).getStatus()).isEqualTo("True");
    assertThat(condition(fixed.conditions, Conditions.READY).getStatus()).isEqualTo("True");
  }

  static BalancerStatusSchema withStragglers(String planVersion, Object... rankPodKind) {
    var b = balancer(planVersion, null);
    b.stragglers = new java.util.ArrayList<>();
    for (int i = 0; i < rankPodKind.length; i += 3) {
      var x = new dev.ballast.operator.api.BalancerStragglerSchema();
      x.rank = ((Number) rankPodKind[i]).longValue();
      x.pod = (String) rankPodKind[i + 1];
      x.kind = (String) rankPodKind[i + 2];
      b.stragglers.add(x);
    }
    return b;
  }

  @Test
  void stragglersTheBalancerNamesBecomeAConditionAndTheReasonUntilNoneIsLeft() {
    job.setStatus(StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0));
    job.getStatus().balancer = withStragglers("0.3", 5L, "olmoe-g0-w0", "slow");
    var stale = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0);
    assertThat(stale.conditions).as("stragglers of another world").noneMatch(c -> c.getType().equals(Conditions.STRAGGLERS));

    job.getStatus().balancer = withStragglers("1.3", 5L, "olmoe-g1-w0", "slow", 9L, "olmoe-g1-w1", "silent");
    var flagged = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0.plusSeconds(5));
    Condition c = condition(flagged.conditions, Conditions.STRAGGLERS);
    assertThat(c.getStatus()).isEqualTo("True");
    assertThat(c.getReason()).isEqualTo("Stragglers");
    assertThat(c.getMessage()).isEqualTo("GPU rank 5 (pod olmoe-g1-w0) runs slower than its peers (at least 1.3× their"
        + " median for 3 windows of 8 steps); GPU rank 9 (pod olmoe-g1-w1) stopped reporting");
    assertThat(flagged.phase).as("the job still runs").isEqualTo(Phase.Running);
    assertThat(StatusReason.of(flagged)).isEqualTo("Stragglers");

    job.setStatus(flagged);
    job.getStatus().balancer = balancer("1.4", null);
    var cleared = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0.plusSeconds(60));
    c = condition(cleared.conditions, Conditions.STRAGGLERS);
    assertThat(c.getStatus()).isEqualTo("False");
    assertThat(c.getReason()).isEqualTo("NoStragglers");
    assertThat(StatusReason.of(cleared)).isNull();

    job.setStatus(flagged);
    var next = StatusAggregator.aggregate(job, d(new WorldStep.Commit(new World(2, world.seats()))), null,
        T0.plusSeconds(90));
    assertThat(condition(next.conditions, Conditions.STRAGGLERS).getReason()).as("a new world").isEqualTo("NewWorld");
  }

  static java.util.Optional<String> turnedToWaiting(List<Condition> before, List<Condition> after) {
    return StatusAggregator.turnedTo(before, after, Conditions.READY, StatusAggregator.CONTAINER_WAITING);
  }

  @Test
  void workersThatStartWaitingGiveOneEventNotOnePerMessage() {
    List<Condition> starting = Conditions.set(List.of(), Conditions.READY, false, "Starting", "0 of 2", 1L, "t0");
    List<Condition> waiting = Conditions.set(starting, Conditions.READY, false, StatusAggregator.CONTAINER_WAITING,
        "0 of 2 workers are running; pod a, container trainer: CrashLoopBackOff (back-off 10s)", 1L, "t1");
    List<Condition> longer = Conditions.set(waiting, Conditions.READY, false, StatusAggregator.CONTAINER_WAITING,
        "0 of 2 workers are running; pod a, container trainer: CrashLoopBackOff (back-off 20s)", 1L, "t2");
    assertThat(turnedToWaiting(starting, waiting))
        .hasValue("0 of 2 workers are running; pod a, container trainer: CrashLoopBackOff (back-off 10s)");
    assertThat(turnedToWaiting(waiting, longer)).as("the same wait, other words").isEmpty();
    assertThat(turnedToWaiting(longer, starting)).isEmpty();
    assertThat(turnedToWaiting(List.of(), waiting)).as("a job seen first while waiting").isPresent();
  }

  @Test
  void aLaggingWorkersRanksReadAsOneRange() {
    job.setStatus(StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0));
    job.getStatus().balancer = withStragglers("1.3", 0L, "olmoe-g1-w0", "slow", 1L, "olmoe-g1-w0", "slow",
        2L, "olmoe-g1-w0", "slow", 3L, "olmoe-g1-w0", "silent", 4L, "olmoe-g1-w1", "silent",
        6L, "olmoe-g1-w1", "silent");
    var flagged = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0.plusSeconds(5));
    assertThat(condition(flagged.conditions, Conditions.STRAGGLERS).getMessage()).isEqualTo("GPU ranks 0–2 (pod"
        + " olmoe-g1-w0) run slower than their peers (at least 1.3× their median for 3 windows of 8 steps); GPU rank 3"
        + " (pod olmoe-g1-w0) stopped reporting; GPU rank 4 (pod olmoe-g1-w1) stopped reporting; GPU rank 6 (pod"
        + " olmoe-g1-w1) stopped reporting");
  }

  @Test
  void oneEventPerChangeOfTheStragglersNotPerReconcile() {
    job.setStatus(StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0));
    var quiet = job.getStatus().conditions;
    job.getStatus().balancer = balancer("1.2", null);
    assertThat(Stragglers.event(quiet, StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())),
        null, T0).conditions)).as("never had one").isNull();

    job.getStatus().balancer = withStragglers("1.2", 5L, "olmoe-g1-w0", "slow");
    var one = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0);
    assertThat(Stragglers.event(quiet, one.conditions)).isEqualTo(new Stragglers.Event(true, "Stragglers",
        "Stragglers: GPU rank 5 (pod olmoe-g1-w0) runs slower than its peers (at least 1.3× their median for 3"
            + " windows of 8 steps)"));
    job.setStatus(one);
    job.getStatus().balancer = withStragglers("1.3", 5L, "olmoe-g1-w0", "slow");
    var same = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0.plusSeconds(30));
    assertThat(Stragglers.event(one.conditions, same.conditions)).as("the same set again").isNull();

    job.getStatus().balancer = withStragglers("1.3", 5L, "olmoe-g1-w0", "slow", 9L, "olmoe-g1-w1", "silent");
    var two = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0.plusSeconds(60));
    assertThat(Stragglers.event(one.conditions, two.conditions)).satisfies(e -> {
      assertThat(e.warning()).isTrue();
      assertThat(e.message()).contains("GPU rank 9 (pod olmoe-g1-w1) stopped reporting");
    });
    job.setStatus(two);
    job.getStatus().balancer = balancer("1.4", null);
    var none = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0.plusSeconds(90));
    assertThat(Stragglers.event(two.conditions, none.conditions)).satisfies(e -> {
      assertThat(e.warning()).isFalse();
      assertThat(e.reason()).isEqualTo("NoStragglers");
    });
  }

  /** The Reconciling or Stalled condition of {@code s}, as "type reason: message", or "none". */
  static String kstatus(TrainingJob job, TrainingJobStatus s) {
    StatusAggregator.summarize(job, s, T0);
    var found = s.conditions.stream().filter(c -> c.getType().equals(KstatusConditions.RECONCILING)
        || c.getType().equals(KstatusConditions.STALLED)).toList();
    assertThat(found).as("at most one of them, and only True").hasSizeLessThanOrEqualTo(1)
        .allSatisfy(c -> assertThat(c.getStatus()).isEqualTo("True"));
    return found.isEmpty() ? "none" : found.get(0).getType() + " " + found.get(0).getReason() + ": "
        + found.get(0).getMessage();
  }

  @Test
  void kstatusReadsReconcilingOnTheWayToRunningStalledWhenAPersonMustActAndNeitherOnceRunning() {
    var pending = StatusAggregator.aggregate(job, d(new WorldStep.Place(1, 4)),
        new GangAdmission.Result.Unschedulable("InsufficientGPUs", "needs 2 workers × 8 GPUs"), T0);
    assertThat(kstatus(job, pending)).isEqualTo("Reconciling InsufficientGPUs: Pending: needs 2 workers × 8 GPUs");
    var committed = StatusAggregator.aggregate(job, d(new WorldStep.Commit(world)), null, T0);
    assertThat(kstatus(job, committed)).startsWith("Reconciling Starting: Admitted: ");

    job.setStatus(committed);
    var running = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0);
    assertThat(kstatus(job, running)).as("removed once running").isEqualTo("none");
    assertThat(running.conditions).extracting(c -> c.getType()).doesNotContain(KstatusConditions.RECONCILING);

    job.setStatus(running);
    var failed = StatusAggregator.aggregate(job, d(new WorldStep.Finish(false, "WorkerFailed", "worker 1 exited 3")),
        null, T0);
    assertThat(kstatus(job, failed)).isEqualTo("Stalled WorkerFailed: worker 1 exited 3");
    job.setStatus(running);
    var succeeded = StatusAggregator.aggregate(job, d(new WorldStep.Finish(true, "AllWorkersSucceeded", "done")),
        null, T0);
    assertThat(kstatus(job, succeeded)).isEqualTo("none");

    job.setStatus(running);
    var suspended = StatusAggregator.aggregate(job, d(new WorldStep.Suspend(new WorldTransition("Suspended",
        "spec.suspend is true", 1L, true, null, T0.toString(), null))), null, T0);
    assertThat(kstatus(job, suspended)).isEqualTo("none");

    job.setStatus(pending);
    var conflict = StatusAggregator.aggregate(job, d(new WorldStep.Place(1, 4)),
        new GangAdmission.Result.Unschedulable("InsufficientGPUs", "needs 2 workers × 8 GPUs"), T0);
    StatusAggregator.childConflicts(job, conflict, List.of("Service olmoe is held by a Service it does not own"), T0);
    assertThat(kstatus(job, conflict)).isEqualTo("Stalled NameConflict: Service olmoe is held by a Service it does"
        + " not own");
    var invalid = StatusAggregator.invalid(job, List.of("spec.model.experts is 0"), T0);
    assertThat(kstatus(job, invalid)).isEqualTo("Stalled InvalidSpec: spec.model.experts is 0");
  }

  @Test
  void theReasonSaysWhyAJobWaitsOrIsNotSimplyRunning() {
    var pending = StatusAggregator.aggregate(job, d(new WorldStep.Place(1, 4)),
        new GangAdmission.Result.Unschedulable("InsufficientGPUs", "needs 2 workers × 8 GPUs"), T0);
    assertThat(StatusReason.of(pending)).isEqualTo("InsufficientGPUs");
    var refused = StatusAggregator.aggregate(job, d(new WorldStep.Place(1, 4)),
        new GangAdmission.Result.Refused("olmoe-g1-w0", "forbidden"), T0);
    assertThat(StatusReason.of(refused)).isEqualTo(StatusAggregator.PODS_REFUSED);

    var committed = StatusAggregator.aggregate(job, d(new WorldStep.Commit(world)), null, T0);
    assertThat(StatusReason.of(committed)).as("admitted, workers starting").isEqualTo("Starting");
    job.setStatus(committed);
    var running = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0);
    StatusAggregator.summarize(job, running, T0);
    assertThat(running.reason).as("nothing in the way").isNull();

    job.setStatus(running);
    job.getStatus().balancer = balancer("1.0", "cannot plan world generation 1: too small");
    var broken = StatusAggregator.aggregate(job, d(new WorldStep.Run(world, 2, List.of())), null, T0);
    assertThat(StatusReason.of(broken)).isEqualTo(BalancerHealth.CONFIG_ERROR_REASON);

    job.setStatus(running);
    var failed = StatusAggregator.reconcileFailed(job, "reconcile step desired failed: boom", T0);
    assertThat(failed.reason).as("a failing reconcile comes first").isEqualTo(StatusAggregator.RECONCILE_ERROR);
  }

  @Test
  void failureIsTerminalWithItsCause() {
    var s = StatusAggregator.aggregate(job,
        d(new WorldStep.Finish(false, "WorkerFailed", "worker olmoe-g1-w1: exited with code 3")), null, T0);
    assertThat(s.phase).isEqualTo(Phase.Failed);
    assertThat(s.completionTime).isEqualTo(T0.toString());
    assertThat(condition(s.conditions, Conditions.FAILED).getMessage()).contains("exited with code 3");
  }

  @Test
  void specProblemsAreReportedWithoutTouchingTheWorld() {
    var s = StatusAggregator.invalid(job, List.of("needs a container named trainer"), T0);
    Condition ready = condition(s.conditions, Conditions.READY);
    assertThat(ready.getReason()).isEqualTo("InvalidSpec");
    assertThat(ready.getMessage()).isEqualTo("needs a container named trainer");
  }

  @Test
  void suspendAndResume() {
    job.setStatus(StatusAggregator.aggregate(job, d(new WorldStep.Suspend(
        new WorldTransition("Suspended", "spec.suspend is true", 0, true, null, T0.toString(), null))), null, T0));
    assertThat(job.getStatus().phase).isEqualTo(Phase.Suspended);
    assertThat(condition(job.getStatus().conditions, Conditions.SUSPENDED).getStatus()).isEqualTo("True");
    var resumed = StatusAggregator.aggregate(job, d(new WorldStep.Place(1, 4)),
        new GangAdmission.Result.Admitted(world), T0.plusSeconds(1));
    assertThat(resumed.phase).isEqualTo(Phase.Admitted);
    assertThat(condition(resumed.conditions, Conditions.SUSPENDED).getStatus()).isEqualTo("False");
  }
}
