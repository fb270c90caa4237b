package dev.ballast.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import dev.ballast.operator.api.WorldNode;
import dev.ballast.operator.api.WorldStatus;
import dev.ballast.operator.api.WorldTransition;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class JobChangeTest {
  static Condition admitted(String reason) {
    return new ConditionBuilder().withType("Admitted").withStatus("False").withReason(reason).build();
  }

  static TrainingJob waiting(String name, String reason) {
    TrainingJob job = TestJobs.job(name, 2, 2, 8);
    job.setStatus(new TrainingJobStatus());
    job.getStatus().phase = Phase.Pending;
    job.getStatus().conditions.add(admitted(reason));
    return job;
  }

  /** A job running {@code size} workers, above its workers.min of 1. */
  static TrainingJob running(String name, int size) {
    TrainingJob job = TestJobs.job(name, 1, 4, 8);
    job.setStatus(new TrainingJobStatus());
    job.getStatus().phase = Phase.Running;
    job.getStatus().world = new WorldStatus();
    job.getStatus().world.nodes = IntStream.range(0, size).mapToObj(i -> new WorldNode()).toList();
    return job;
  }

  @Test
  void aJobStartingToWaitOrEditedWhileWaitingConcernsTheJobsThatMayGiveWay() {
    TrainingJob placed = waiting("w", "Placed");
    TrainingJob waits = waiting("w", "InsufficientGPUs");
    assertThat(JobChange.matters(placed, waits)).isTrue();
    TrainingJob statusOnly = Serialization.clone(waits);
    statusOnly.getStatus().conditions.get(0).setMessage("another message");
    assertThat(JobChange.matters(waits, statusOnly)).as("still waiting, same spec").isFalse();
    TrainingJob edited = Serialization.clone(waits);
    edited.getMetadata().setGeneration(2L);
    assertThat(JobChange.matters(waits, edited)).isTrue();

    TrainingJob lender = running("lender", 2);
    TrainingJob atMin = running("at-min", 1);
    TrainingJob stopping = running("stopping", 2);
    stopping.getStatus().transition = new WorldTransition("SpecChanged", "", 1, true, null, "2026-12-06T00:00:00Z", null);
    assertThat(JobChange.concerned(waits, Stream.of(lender, atMin, stopping, waits)).toList())
        .as("a job above its minimum may give back; one at its minimum may be preempted; one between worlds neither")
        .containsExactly(lender, atMin);
  }

  @Test
  void aJobStartingToWaitForItsQuotaConcernsTheJobsThatMayGiveWayAsOneWaitingForRoomDoes() {
    TrainingJob waits = waiting("w", "ExceedsQuota");
    assertThat(JobChange.matters(waiting("w", "Placed"), waits)).isTrue();
    assertThat(JobChange.matters(waits, waiting("w", "Placed"))).as("it stops waiting").isTrue();
    assertThat(JobChange.mattersWhenDeleted(waits)).isTrue();
    TrainingJob lender = running("lender", 2);
    assertThat(JobChange.concerned(waits, Stream.of(lender, waits)).toList()).containsExactly(lender);
  }

  @Test
  void aReclaimStartingConcernsTheJobItIsForAndOneEndingTheJobsAwaitingOne() {
    TrainingJob lending = running("lender", 2);
    lending.getStatus().transition = new WorldTransition("Reclaimed", "", 1, true, 1, "2026-12-06T00:00:00Z", null);
    lending.getStatus().transition.forJob = "team-a/w";
    TrainingJob before = running("lender", 2);
    assertThat(JobChange.matters(before, lending)).isTrue();
    TrainingJob stillWaiting = waiting("w", "InsufficientGPUs");
    assertThat(JobChange.concerned(lending, Stream.of(stillWaiting, waiting("x", "Placed"))).toList())
        .as("the job it gives way to waits for it, though its own status does not say so yet")
        .containsExactly(stillWaiting);

    TrainingJob done = running("lender", 1);
    assertThat(JobChange.matters(lending, done)).isTrue();
    assertThat(JobChange.matters(done, done)).isFalse();

    TrainingJob awaiting = waiting("w", "AwaitingReclaim");
    TrainingJob other = waiting("x", "InsufficientGPUs");
    other.getStatus().conditions = new java.util.ArrayList<>(List.of(admitted("Placed")));
    assertThat(JobChange.concerned(done, Stream.of(awaiting, other, done)).toList()).containsExactly(awaiting);
  }

  @Test
  void aPreemptedJobsWorkersStoppingConcernsTheJobAwaitingThemAndThatJobsAdmissionConcernsThePreemptedJob() {
    TrainingJob stopping = running("low", 2);
    stopping.getStatus().transition = new WorldTransition("Preempted", "", 1, true, null, "2026-12-06T00:00:00Z", null);
    stopping.getStatus().transition.forJob = "team-a/high";
    stopping.getStatus().conditions.add(new ConditionBuilder().withType("Admitted").withStatus("True")
        .withReason("WorldCommitted").build());
    TrainingJob stopped = Serialization.clone(stopping);
    stopped.getStatus().phase = Phase.Pending;
    stopped.getStatus().conditions = new java.util.ArrayList<>(List.of(admitted("Preempted")));
    assertThat(JobChange.matters(stopping, stopped)).as("it now waits for room itself").isTrue();
    TrainingJob awaiting = waiting("high", "AwaitingPreemption");
    assertThat(JobChange.concerned(stopped, Stream.of(awaiting, stopped)).toList()).containsExactly(awaiting);

    TrainingJob admitted = waiting("high", "Placed");
    assertThat(JobChange.matters(awaiting, admitted)).as("it stopped waiting").isTrue();
    assertThat(JobChange.concerned(admitted, Stream.of(stopped, running("other", 2))).toList())
        .as("the job preempted for it may try its own admission").containsExactly(stopped);
    assertThat(JobChange.mattersWhenDeleted(awaiting)).isTrue();
    assertThat(JobChange.mattersWhenDeleted(running("other", 2))).isFalse();
  }

  @Test
  void aJobStartingToQueueBehindConcernsTheWaitingJobsAndEveryChangeConcernsTheJobsQueued() {
    TrainingJob waits = waiting("w", "InsufficientGPUs");
    TrainingJob queued = waiting("w", "QueuedBehind");
    assertThat(JobChange.matters(waits, queued)).as("still waiting, but now behind another").isTrue();
    assertThat(JobChange.matters(queued, queued)).isFalse();
    TrainingJob ahead = waiting("ahead", "InsufficientGPUs");
    TrainingJob lender = running("lender", 2);
    assertThat(JobChange.concerned(queued, Stream.of(ahead, lender)).toList()).as("the one ahead takes the room now")
        .containsExactly(ahead, lender);

    TrainingJob admitted = waiting("ahead", "Placed");
    assertThat(JobChange.matters(ahead, admitted)).isTrue();
    TrainingJob other = waiting("other", "InsufficientGPUs");
    assertThat(JobChange.concerned(admitted, Stream.of(queued, other)).toList()).as("the job queued behind looks again")
        .containsExactly(queued);
  }

  @Test
  void aPauseAnnotationThatTheStatusDoesNotShowYetConcernsTheJobItself() {
    TrainingJob running = running("job", 2);
    assertThat(JobChange.pauseChanged(running)).isFalse();
    TrainingJob annotated = Serialization.clone(running);
    annotated.getMetadata().setAnnotations(java.util.Map.of("ballast.dev/pause-reconciliation", "true"));
    assertThat(JobChange.pauseChanged(annotated)).isTrue();
    assertThat(JobChange.matters(running, annotated)).isTrue();
    annotated.getStatus().conditions.add(new ConditionBuilder().withType("ReconciliationPaused").withStatus("True")
        .build());
    assertThat(JobChange.pauseChanged(annotated)).as("the status says so: done").isFalse();
    TrainingJob removed = Serialization.clone(annotated);
    removed.getMetadata().setAnnotations(java.util.Map.of());
    assertThat(JobChange.pauseChanged(removed)).as("resumed, the status not yet").isTrue();
  }
}
