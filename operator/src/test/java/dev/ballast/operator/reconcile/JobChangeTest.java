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
  void aJobStartingToWaitOrEditedWhileWaitingConcernsTheJobsThatMayGiveBack() {
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
    assertThat(JobChange.concerned(waits, Stream.of(lender, atMin, waits)).toList()).containsExactly(lender);
  }

  @Test
  void aReclaimEndingConcernsTheJobsAwaitingOne() {
    TrainingJob lending = running("lender", 2);
    lending.getStatus().transition = new WorldTransition("Reclaimed", "", 1, true, 1, "2026-12-06T00:00:00Z", null);
    TrainingJob done = running("lender", 1);
    assertThat(JobChange.matters(lending, done)).isTrue();
    assertThat(JobChange.matters(done, done)).isFalse();

    TrainingJob awaiting = waiting("w", "AwaitingReclaim");
    TrainingJob other = waiting("x", "InsufficientGPUs");
    other.getStatus().conditions = new java.util.ArrayList<>(List.of(admitted("Placed")));
    assertThat(JobChange.concerned(done, Stream.of(awaiting, other, done)).toList()).containsExactly(awaiting);
  }
}
