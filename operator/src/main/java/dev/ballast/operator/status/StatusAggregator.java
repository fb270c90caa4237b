package dev.ballast.operator.status;

import dev.ballast.operator.admission.GangAdmission;
import dev.ballast.operator.api.CommittedSpec;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.api.WorldNode;
import dev.ballast.operator.api.WorldStatus;
import dev.ballast.operator.desired.Names;
import dev.ballast.operator.world.World;
import dev.ballast.operator.world.WorldStep;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Computes the operator's part of the status from the previous status and the step taken this
 * reconcile. Pure; {@code status.balancer} is never produced here (the balancer owns it).
 */
public final class StatusAggregator {
  private StatusAggregator() {}

  /**
   * @param step the world step carried out
   * @param admission the admission outcome when the step was {@link WorldStep.Place}, else null
   * @param problems spec problems the API server could not catch; non-empty means nothing was acted on
   */
  public static TrainingJobStatus aggregate(TrainingJob job, WorldStep step, GangAdmission.Result admission,
      List<String> problems, Instant now) {
    TrainingJobStatus previous = job.getStatus() == null ? new TrainingJobStatus() : job.getStatus();
    TrainingJobStatus s = new TrainingJobStatus();
    s.phase = previous.phase == null ? Phase.Pending : previous.phase;
    s.observedGeneration = job.getMetadata().getGeneration();
    s.world = previous.world == null ? null : Serialization.clone(previous.world);
    s.desiredWorkers = previous.desiredWorkers == null ? 0 : previous.desiredWorkers;
    s.readyWorkers = previous.readyWorkers == null ? 0 : previous.readyWorkers;
    s.restarts = previous.restarts == null ? 0 : previous.restarts;
    s.startTime = previous.startTime;
    s.completionTime = previous.completionTime;
    s.conditions = new ArrayList<>(previous.conditions);
    long gen = s.observedGeneration == null ? 0 : s.observedGeneration;
    String ts = now.toString();
    var c = new ConditionSetter(s, gen, ts);

    if (!problems.isEmpty()) {
      c.set(Conditions.READY, false, "InvalidSpec", String.join("; ", problems));
      return s;
    }

    // WorldStep.Ended and WorldStep.Draining leave the status as it was.
    if (step instanceof WorldStep.Suspend) {
      s.phase = Phase.Suspended;
      s.readyWorkers = 0;
      c.set(Conditions.SUSPENDED, true, "Suspended", "spec.suspend is true; workers are deleted and hold no GPUs");
      c.set(Conditions.ADMITTED, false, "Suspended", "the job is suspended");
      c.set(Conditions.READY, false, "Suspended", "the job is suspended");
    } else if (step instanceof WorldStep.Place) {
      resumed(s, c);
      s.readyWorkers = 0;
      if (admission instanceof GangAdmission.Result.Admitted a) {
        s.phase = Phase.Admitted;
        s.desiredWorkers = a.world().size();
        c.set(Conditions.ADMITTED, false, "Placed", "placed " + a.world().size() + " workers on "
            + distinctNodes(a.world()) + " nodes for world " + a.world().generation() + "; releasing them together");
      } else if (admission instanceof GangAdmission.Result.Unschedulable u) {
        s.phase = Phase.Pending;
        s.desiredWorkers = 0;
        c.set(Conditions.ADMITTED, false, "InsufficientGPUs", u.message());
      }
      c.set(Conditions.READY, false, "NotAdmitted", "no world is admitted yet");
    } else if (step instanceof WorldStep.Release r) {
      s.phase = Phase.Admitted;
      s.desiredWorkers = r.world().size();
      c.set(Conditions.ADMITTED, false, "Binding", "released all " + r.world().size()
          + " workers of world " + r.world().generation() + " to the scheduler");
    } else if (step instanceof WorldStep.AwaitBinding a) {
      s.phase = Phase.Admitted;
      s.desiredWorkers = a.world().size();
      c.set(Conditions.ADMITTED, false, "Binding", a.bound() + " of " + a.world().size()
          + " workers of world " + a.world().generation() + " are bound; waiting until " + a.deadline());
    } else if (step instanceof WorldStep.RollBack rb) {
      s.phase = Phase.Pending;
      s.desiredWorkers = 0;
      s.readyWorkers = 0;
      c.set(Conditions.ADMITTED, false, rb.reason(), rb.message());
      c.set(Conditions.READY, false, "NotAdmitted", "the gang was rolled back");
    } else if (step instanceof WorldStep.Commit cm) {
      s.phase = Phase.Admitted;
      s.world = worldStatus(job, cm.world());
      s.desiredWorkers = cm.world().size();
      s.readyWorkers = 0;
      c.set(Conditions.ADMITTED, true, "WorldCommitted", "all " + cm.world().size() + " workers of world "
          + cm.world().generation() + " are bound to their nodes");
      c.set(Conditions.READY, false, "Starting", "workers are starting");
    } else if (step instanceof WorldStep.Recreate rc) {
      s.phase = Phase.Restarting;
      c.set(Conditions.READY, false, "WorkersMissing", rc.missing().size() + " worker pods of world "
          + rc.world().generation() + " disappeared and are being recreated on their nodes");
    } else if (step instanceof WorldStep.Run run) {
      int size = run.world().size();
      s.desiredWorkers = size;
      s.readyWorkers = run.ready();
      c.set(Conditions.ADMITTED, true, "WorldCommitted", "all " + size + " workers of world "
          + run.world().generation() + " are bound to their nodes");
      if (run.ready() == size) {
        s.phase = Phase.Running;
        if (s.startTime == null) s.startTime = ts;
        c.set(Conditions.READY, true, "AllWorkersRunning", "all " + size + " workers are running");
      } else {
        s.phase = Phase.Admitted;
        c.set(Conditions.READY, false, "Starting", run.ready() + " of " + size + " workers are running");
      }
    } else if (step instanceof WorldStep.Finish f) {
      s.phase = f.succeeded() ? Phase.Succeeded : Phase.Failed;
      s.completionTime = ts;
      s.readyWorkers = 0;
      c.set(f.succeeded() ? Conditions.SUCCEEDED : Conditions.FAILED, true, f.reason(), f.message());
      c.set(Conditions.READY, false, f.succeeded() ? "Succeeded" : "Failed", f.message());
    }
    return s;
  }

  private static void resumed(TrainingJobStatus s, ConditionSetter c) {
    if (Conditions.isTrue(s.conditions, Conditions.SUSPENDED)) {
      c.set(Conditions.SUSPENDED, false, "Resumed", "spec.suspend is false; admitting a new world");
    }
  }

  private static long distinctNodes(World world) {
    return world.seats().stream().map(dev.ballast.operator.world.Seat::node).distinct().count();
  }

  private static WorldStatus worldStatus(TrainingJob job, World world) {
    String name = job.getMetadata().getName();
    List<WorldNode> nodes = world.seats().stream()
        .map(seat -> new WorldNode(seat.index(), Names.workerPod(name, seat.index()), seat.node(), seat.nodeRank(),
            seat.domain(), seat.rack()))
        .toList();
    return new WorldStatus(world.generation(), job.getSpec().gpusPerWorker, nodes, CommittedSpec.of(job.getSpec()));
  }

  private record ConditionSetter(TrainingJobStatus status, long generation, String now) {
    void set(String type, boolean value, String reason, String message) {
      status.conditions = Conditions.set(status.conditions, type, value, reason, message, generation, now);
    }
  }
}
