package dev.ballast.operator.status;

import dev.ballast.operator.admission.GangAdmission;
import dev.ballast.operator.api.BalancerStatusSchema;
import dev.ballast.operator.api.BindingBackoff;
import dev.ballast.operator.api.CommittedSpec;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobSpec;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import dev.ballast.operator.api.WorldNode;
import dev.ballast.operator.api.WorldStatus;
import dev.ballast.operator.api.WorldTransition;
import dev.ballast.operator.desired.Labels;
import dev.ballast.operator.desired.Names;
import dev.ballast.operator.world.Backoff;
import dev.ballast.operator.world.Decision;
import dev.ballast.operator.world.Seat;
import dev.ballast.operator.world.World;
import dev.ballast.operator.world.WorldLifecycle;
import dev.ballast.operator.world.WorldStep;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Computes the operator's part of the status from the previous status and the decision carried out this
 * reconcile. Pure; {@code status.balancer} is never produced here (the balancer owns it).
 */
public final class StatusAggregator {
  /** The Resizing reason while a world below spec.workers.min waits for room to grow. */
  public static final String WAITING_FOR_ROOM = "WaitingForRoom";
  /**
   * The Ready reason while a committed world's workers cannot start: a container waits for anything but starting
   * (an image pull back-off, a missing Secret or ConfigMap, a crashing sidecar); the message names the pods.
   */
  public static final String CONTAINER_WAITING = "ContainerWaiting";
  /** The reason of Balancing=False while the balancer's Deployment or pod says why it does not run. */
  public static final String BALANCER_NOT_RUNNING = "BalancerNotRunning";
  /** The Admitted reason when the API server refused a worker pod (e.g. the namespace's Pod Security level). */
  public static final String PODS_REFUSED = "PodRefused";

  /** The ChildrenOwned reason while a child's name is held by an object the job does not control. */
  public static final String NAME_CONFLICT = "NameConflict";

  /** The Ready reason of a spec the operator cannot act on. */
  public static final String INVALID_SPEC = "InvalidSpec";
  /** The Reconciled reason while the last reconcile threw. */
  public static final String RECONCILE_ERROR = "ReconcileError";

  private StatusAggregator() {}

  /**
   * The message of a Warning event when {@code after}'s {@code type} condition turns False with {@code reason} from
   * anything else in {@code before} (the world's workers start waiting, {@link #CONTAINER_WAITING}; the balancer
   * stops running, {@link #BALANCER_NOT_RUNNING}): once, not on every change of the kubelet's words (a back-off's
   * message changes with each retry); the condition keeps the current ones.
   */
  public static Optional<String> turnedTo(List<Condition> before, List<Condition> after, String type, String reason) {
    if (!reason.equals(Conditions.falseReason(after, type)) || reason.equals(Conditions.falseReason(before, type))) {
      return Optional.empty();
    }
    return after.stream().filter(c -> type.equals(c.getType())).map(Condition::getMessage).findFirst();
  }

  /**
   * Sets Balancing on {@code next} while the balancer has not described the job's world yet: False with
   * {@link #BALANCER_NOT_RUNNING} while its Deployment or pod says why it does not run ({@code problem},
   * {@link BalancerPods#problem}, read only then); once that is over, False with BalancerStarting until the balancer
   * describes the world (a job whose balancer never had a problem shows no Balancing condition before then).
   */
  public static void balancerPods(TrainingJob job, TrainingJobStatus next, Supplier<Optional<String>> problem,
      Instant now) {
    if (next.phase == Phase.Succeeded || next.phase == Phase.Failed || next.phase == Phase.Suspended) return;
    long generation = next.world == null || next.world.generation == null ? 0 : next.world.generation;
    var health = BalancerHealth.of(job.getSpec(), generation,
        job.getStatus() == null ? null : job.getStatus().balancer);
    if (health.state() != BalancerHealth.State.UNKNOWN) return;
    var c = new ConditionSetter(next, generation(job), now.toString());
    Optional<String> found = problem.get();
    if (found.isPresent()) {
      c.set(Conditions.BALANCING, false, BALANCER_NOT_RUNNING, "the balancer is not running: " + found.get()
          + "; the workers train on the static expert layout until it plans");
    } else if (BALANCER_NOT_RUNNING.equals(Conditions.falseReason(next.conditions, Conditions.BALANCING))) {
      c.set(Conditions.BALANCING, false, "BalancerStarting", "the balancer's pod runs; it has not described world "
          + generation + " yet");
    }
  }

  /** The previous status with Reconciled False, naming what failed; everything else as it was. */
  public static TrainingJobStatus reconcileFailed(TrainingJob job, String message, Instant now) {
    TrainingJobStatus s = carriedOver(job);
    new ConditionSetter(s, generation(job), now.toString()).set(Conditions.RECONCILED, false, RECONCILE_ERROR, message);
    summarize(job, s, now);
    return s;
  }

  /**
   * The previous status with ReconciliationPaused True: the operator acts on nothing of the job while its annotation
   * ballast.dev/pause-reconciliation is "true"; everything else as it was.
   */
  public static TrainingJobStatus paused(TrainingJob job, Instant now) {
    TrainingJobStatus s = carriedOver(job);
    new ConditionSetter(s, generation(job), now.toString()).set(Conditions.RECONCILIATION_PAUSED, true,
        Conditions.RECONCILIATION_PAUSED, "the annotation " + Labels.PAUSE_RECONCILIATION + " is \"true\": the"
            + " operator changes nothing of this job (no admission, restart, resize or preemption; its pods and"
            + " children are left as they are, and its status as it was) until the annotation is removed");
    summarize(job, s, now);
    return s;
  }

  /**
   * Sets Reconciled True on {@code next} once a job that had the condition reconciles without error, and
   * ReconciliationPaused False once a job that was paused reconciles again.
   */
  public static void reconciled(TrainingJob job, TrainingJobStatus next, Instant now) {
    var c = new ConditionSetter(next, generation(job), now.toString());
    if (Conditions.has(next.conditions, Conditions.RECONCILED)) {
      c.set(Conditions.RECONCILED, true, "Reconciled", "the last reconcile completed");
    }
    if (Conditions.has(next.conditions, Conditions.RECONCILIATION_PAUSED)) {
      c.set(Conditions.RECONCILIATION_PAUSED, false, "Resumed", "the annotation " + Labels.PAUSE_RECONCILIATION
          + " is not \"true\": the operator reconciles the job");
    }
  }

  /**
   * Sets ChildrenOwned on {@code next}: False with every conflict's message while there are any, True once a job
   * that had the condition has none (a job that never had a conflict never shows it).
   */
  public static void childConflicts(TrainingJob job, TrainingJobStatus next, List<String> conflicts, Instant now) {
    var c = new ConditionSetter(next, generation(job), now.toString());
    if (!conflicts.isEmpty()) {
      c.set(Conditions.CHILDREN_OWNED, false, NAME_CONFLICT, String.join("; ", conflicts));
    } else if (Conditions.has(next.conditions, Conditions.CHILDREN_OWNED)) {
      c.set(Conditions.CHILDREN_OWNED, true, "Owned", "every child of the job is controlled by it");
    }
  }

  /**
   * Sets status.reason ({@link StatusReason}) and the kstatus conditions ({@link KstatusConditions}) from the
   * conditions as they now are; call after the last condition.
   */
  public static void summarize(TrainingJob job, TrainingJobStatus next, Instant now) {
    next.reason = StatusReason.of(next);
    KstatusConditions.apply(next, generation(job), now.toString());
  }

  /** Status for a spec the operator cannot act on: only the Ready condition says why. */
  public static TrainingJobStatus invalid(TrainingJob job, List<String> problems, Instant now) {
    TrainingJobStatus s = carriedOver(job);
    s.observedGeneration = job.getMetadata().getGeneration();
    new ConditionSetter(s, generation(job), now.toString())
        .set(Conditions.READY, false, INVALID_SPEC, String.join("; ", problems));
    return s;
  }

  /**
   * @param decision the decision carried out
   * @param admission the admission outcome when the step was {@link WorldStep.Place}, else null
   */
  public static TrainingJobStatus aggregate(TrainingJob job, Decision decision, GangAdmission.Result admission,
      Instant now) {
    TrainingJobStatus s = carriedOver(job);
    Long previousObserved = s.observedGeneration;
    s.observedGeneration = decision.specInEffect() || previousObserved == null
        ? job.getMetadata().getGeneration() : previousObserved;
    String ts = now.toString();
    var c = new ConditionSetter(s, generation(job), ts);
    WorldStep step = decision.step();

    // WorldStep.Ended and WorldStep.Stopping leave the rest as it was, but for Ready while stopping.
    if (step instanceof WorldStep.Suspend su) {
      s.phase = Phase.Suspended;
      s.startTime = null; // set again when the job runs after it is resumed: time suspended is not active
      s.readyWorkers = 0;
      s.transition = su.transition();
      c.set(Conditions.SUSPENDED, true, "Suspended", "spec.suspend is true; workers are deleted and hold no GPUs");
      c.set(Conditions.ADMITTED, false, "Suspended", "the job is suspended");
      c.set(Conditions.READY, false, "Suspended", "the job is suspended");
      clearResizing(c, s, "Suspended", "the job is suspended");
    } else if (step instanceof WorldStep.Transition t) {
      s.transition = t.transition();
      if (t.countsAsRestart()) s.restarts = s.restarts + 1;
      s.phase = betweenWorlds(s, s.phase);
      s.readyWorkers = 0;
      if (Boolean.TRUE.equals(t.transition().voluntary)) {
        c.set(Conditions.RESIZING, true, t.transition().reason, t.transition().message);
      }
      c.set(Conditions.READY, false, t.transition().reason, t.transition().message);
    } else if (step instanceof WorldStep.Stopping st) {
      s.phase = betweenWorlds(s, s.phase);
      s.readyWorkers = 0;
      c.set(Conditions.READY, false, "Stopping", st.remaining() + " workers of world " + st.generation()
          + " have not stopped yet; the next world starts when all have");
    } else if (step instanceof WorldStep.Wait w) {
      resumed(s, c);
      s.phase = betweenWorlds(s, Phase.Pending);
      s.desiredWorkers = 0;
      s.readyWorkers = 0;
      c.set(Conditions.ADMITTED, false, w.reason(), w.message());
      preemptedWaits(c, s);
    } else if (step instanceof WorldStep.Place) {
      resumed(s, c);
      s.readyWorkers = 0;
      if (admission instanceof GangAdmission.Result.Admitted a) {
        s.phase = betweenWorlds(s, Phase.Admitted);
        s.desiredWorkers = a.world().size();
        c.set(Conditions.ADMITTED, false, "Placed", "placed " + a.world().size() + " workers on "
            + distinctNodes(a.world()) + " nodes for world " + a.world().generation() + "; releasing them together");
      } else if (admission instanceof GangAdmission.Result.Unschedulable u) {
        s.phase = betweenWorlds(s, Phase.Pending);
        s.desiredWorkers = 0;
        c.set(Conditions.ADMITTED, false, u.reason(), u.message());
        preemptedWaits(c, s);
      } else if (admission instanceof GangAdmission.Result.Refused r) {
        s.phase = betweenWorlds(s, Phase.Pending);
        s.desiredWorkers = 0;
        c.set(Conditions.ADMITTED, false, PODS_REFUSED, refusedMessage(r));
      }
      c.set(Conditions.READY, false, "NotAdmitted", "no world is admitted yet");
    } else if (step instanceof WorldStep.AwaitPods ap) {
      s.phase = betweenWorlds(s, Phase.Admitted);
      s.desiredWorkers = ap.size();
      s.readyWorkers = 0;
      c.set(Conditions.ADMITTED, false, "Placed", "created all " + ap.size() + " worker pods of world "
          + ap.generation() + "; the operator's cache shows " + ap.shown() + " of them yet (waiting until "
          + ap.deadline() + ")");
      c.set(Conditions.READY, false, "NotAdmitted", "no world is admitted yet");
    } else if (step instanceof WorldStep.Release r) {
      s.phase = betweenWorlds(s, Phase.Admitted);
      s.desiredWorkers = r.world().size();
      c.set(Conditions.ADMITTED, false, "Binding", "released all " + r.world().size()
          + " workers of world " + r.world().generation() + " to the scheduler");
    } else if (step instanceof WorldStep.AwaitBinding a) {
      s.phase = betweenWorlds(s, Phase.Admitted);
      s.desiredWorkers = a.world().size();
      c.set(Conditions.ADMITTED, false, "Binding", a.bound() + " of " + a.world().size()
          + " workers of world " + a.world().generation() + " are bound; waiting until " + a.deadline()
          + (a.schedulerSays() == null ? "" : "; the scheduler says: " + a.schedulerSays()));
    } else if (step instanceof WorldStep.RollBack rb) {
      s.phase = betweenWorlds(s, Phase.Pending);
      s.desiredWorkers = 0;
      s.readyWorkers = 0;
      if ("BindingTimeout".equals(rb.reason())) s.bindingBackoff = bindingBackoff(job.getSpec(), s.bindingBackoff, rb, now);
      if (rb.retires() > 0) s.retiredGeneration = Math.max(rb.retires(), s.retiredGeneration == null ? 0 : s.retiredGeneration);
      c.set(Conditions.ADMITTED, false, rb.reason(), rb.message());
      c.set(Conditions.READY, false, "NotAdmitted", "the gang was rolled back");
    } else if (step instanceof WorldStep.Commit cm) {
      WorldTransition finished = s.transition;
      s.phase = Phase.Admitted;
      s.world = worldStatus(job, cm.world());
      s.desiredWorkers = cm.world().size();
      s.readyWorkers = 0;
      s.transition = null;
      s.bindingBackoff = null;
      s.worldCommitTime = ts;
      s.worldRunningTime = null;
      c.set(Conditions.ADMITTED, true, "WorldCommitted", "all " + cm.world().size() + " workers of world "
          + cm.world().generation() + " are bound to their nodes");
      c.set(Conditions.READY, false, "Starting", "workers are starting");
      if (Conditions.isTrue(s.conditions, Conditions.STRAGGLERS)) {
        c.set(Conditions.STRAGGLERS, false, "NewWorld", "world " + cm.world().generation()
            + " starts without known stragglers");
      }
      if (finished != null && Boolean.TRUE.equals(finished.voluntary)) {
        clearResizing(c, s, "Resized", "world " + cm.world().generation() + " has " + cm.world().size()
            + " workers (" + finished.reason + ")");
      }
    } else if (step instanceof WorldStep.Run run) {
      int size = run.world().size();
      s.desiredWorkers = size;
      s.readyWorkers = run.ready();
      c.set(Conditions.ADMITTED, true, "WorldCommitted", "all " + size + " workers of world "
          + run.world().generation() + " are bound to their nodes");
      var balancer = BalancerHealth.of(job.getSpec(), run.world().generation(),
          job.getStatus() == null ? null : job.getStatus().balancer);
      balancerCondition(c, balancer);
      stragglersCondition(c, s, run.world().generation(), job.getStatus() == null ? null : job.getStatus().balancer);
      if (run.ready() == size) {
        s.phase = Phase.Running;
        if (s.startTime == null) s.startTime = ts;
        if (s.worldRunningTime == null) s.worldRunningTime = ts;
        if (balancer.state() == BalancerHealth.State.CONFIG_ERROR) {
          c.set(Conditions.READY, false, BalancerHealth.CONFIG_ERROR_REASON, "all " + size
              + " workers run on the static expert layout, but " + balancer.message());
        } else {
          c.set(Conditions.READY, true, "AllWorkersRunning", "all " + size + " workers are running");
        }
      } else {
        s.phase = Phase.Admitted;
        c.set(Conditions.READY, false, "Starting", run.ready() + " of " + size + " workers are running");
      }
      for (WorldStep.Note note : run.notes()) c.set(note.type(), note.status(), note.reason(), note.message());
      boolean waitingForRoom = s.conditions.stream().anyMatch(x -> Conditions.RESIZING.equals(x.getType())
          && WAITING_FOR_ROOM.equals(x.getReason()));
      if (waitingForRoom && run.notes().stream().noneMatch(n -> Conditions.RESIZING.equals(n.type()))) {
        c.set(Conditions.RESIZING, false, "InRange", "world " + run.world().generation() + " has " + size
            + " workers, within spec.workers");
      }
    } else if (step instanceof WorldStep.Finish f) {
      s.phase = f.succeeded() ? Phase.Succeeded : Phase.Failed;
      s.completionTime = ts;
      s.readyWorkers = 0;
      s.transition = null;
      c.set(f.succeeded() ? Conditions.SUCCEEDED : Conditions.FAILED, true, f.reason(), f.message());
      c.set(Conditions.READY, false, f.succeeded() ? "Succeeded" : "Failed", f.message());
      clearResizing(c, s, f.succeeded() ? "Succeeded" : "Failed", "the job ended");
    }
    return s;
  }

  private static TrainingJobStatus carriedOver(TrainingJob job) {
    TrainingJobStatus previous = job.getStatus() == null ? new TrainingJobStatus() : job.getStatus();
    TrainingJobStatus s = new TrainingJobStatus();
    s.phase = previous.phase == null ? Phase.Pending : previous.phase;
    s.observedGeneration = previous.observedGeneration;
    s.world = previous.world == null ? null : Serialization.clone(previous.world);
    s.desiredWorkers = previous.desiredWorkers == null ? 0 : previous.desiredWorkers;
    s.readyWorkers = previous.readyWorkers == null ? 0 : previous.readyWorkers;
    s.restarts = previous.restarts == null ? 0 : previous.restarts;
    s.startTime = previous.startTime;
    s.completionTime = previous.completionTime;
    s.worldCommitTime = previous.worldCommitTime;
    s.worldRunningTime = previous.worldRunningTime;
    s.transition = previous.transition == null ? null : Serialization.clone(previous.transition);
    s.bindingBackoff = previous.bindingBackoff == null ? null : Serialization.clone(previous.bindingBackoff);
    s.retiredGeneration = previous.retiredGeneration;
    s.conditions = new ArrayList<>(previous.conditions);
    return s;
  }

  private static long generation(TrainingJob job) {
    Long g = job.getMetadata().getGeneration();
    return g == null ? 0 : g;
  }

  /**
   * Between two worlds the phase says why: Restarting after a failure, Resizing for a voluntary change. A preempted job
   * is Resizing while its workers stop, then goes through Pending and Admitted as a new job does.
   */
  private static Phase betweenWorlds(TrainingJobStatus s, Phase otherwise) {
    WorldTransition t = s.transition;
    if (t == null || "Suspended".equals(t.reason)) return otherwise;
    if (WorldLifecycle.PREEMPTED.equals(t.reason) && otherwise != Phase.Running) return otherwise;
    return Boolean.TRUE.equals(t.voluntary) ? Phase.Resizing : Phase.Restarting;
  }

  /** A preempted job whose workers have stopped waits for room: no resize is under way any more. */
  private static void preemptedWaits(ConditionSetter c, TrainingJobStatus s) {
    WorldTransition t = s.transition;
    if (t != null && WorldLifecycle.PREEMPTED.equals(t.reason)) {
      clearResizing(c, s, WorldLifecycle.PREEMPTED, "world " + t.fromGeneration + " stopped for " + t.forJob
          + "; the next world is admitted when there is room for workers.min");
    }
  }

  /**
   * Counts binding timeouts of a gang on the same nodes; from the second in a row admission waits, doubling
   * from spec.recovery.backoffSeconds, so it does not repeat a placement the scheduler keeps refusing.
   */
  static BindingBackoff bindingBackoff(TrainingJobSpec spec, BindingBackoff previous, WorldStep.RollBack rb,
      Instant now) {
    int timeouts = previous != null && Objects.equals(previous.nodes, rb.nodes()) && previous.timeouts != null
        ? previous.timeouts + 1 : 1;
    if (timeouts < 2) return new BindingBackoff(rb.nodes(), timeouts, null);
    long delay = Backoff.seconds(spec.recovery, timeouts - 1);
    return new BindingBackoff(rb.nodes(), timeouts, now.plusSeconds(delay).toString());
  }

  /** The Balancing condition, once the balancer has described the world (a config error also unreadies the job). */
  private static void balancerCondition(ConditionSetter c, BalancerHealth health) {
    switch (health.state()) {
      case PLANNING -> c.set(Conditions.BALANCING, true, "Planning", health.message());
      case CONFIG_ERROR -> c.set(Conditions.BALANCING, false, BalancerHealth.CONFIG_ERROR_REASON, health.message());
      case NOT_WANTED, UNKNOWN -> { }
    }
  }

  /** The Stragglers condition from status.balancer.stragglers, once the balancer describes world {@code generation}. */
  private static void stragglersCondition(ConditionSetter c, TrainingJobStatus s, long generation,
      BalancerStatusSchema balancer) {
    if (balancer == null || balancer.planVersion == null || !balancer.planVersion.startsWith(generation + ".")) return;
    String named = Stragglers.describe(balancer.stragglers);
    if (!named.isEmpty()) {
      c.set(Conditions.STRAGGLERS, true, Conditions.STRAGGLERS, named);
    } else if (Conditions.isTrue(s.conditions, Conditions.STRAGGLERS)) {
      c.set(Conditions.STRAGGLERS, false, "NoStragglers", "every GPU rank of world " + generation
          + " reports and keeps pace with its peers");
    }
  }

  private static void clearResizing(ConditionSetter c, TrainingJobStatus s, String reason, String message) {
    if (Conditions.has(s.conditions, Conditions.RESIZING)) c.set(Conditions.RESIZING, false, reason, message);
  }

  private static void resumed(TrainingJobStatus s, ConditionSetter c) {
    if (Conditions.isTrue(s.conditions, Conditions.SUSPENDED)) {
      c.set(Conditions.SUSPENDED, false, "Resumed", "spec.suspend is false; admitting a new world");
    }
  }

  /** The API server's own words, and what to do: the pod comes from spec.template. */
  public static String refusedMessage(GangAdmission.Result.Refused r) {
    return "the API server refused worker pod " + r.pod() + " (built from spec.template): " + r.message()
        + "; admission retries, fix spec.template or the namespace's policy";
  }

  private static long distinctNodes(World world) {
    return world.seats().stream().map(Seat::node).distinct().count();
  }

  private static WorldStatus worldStatus(TrainingJob job, World world) {
    String name = job.getMetadata().getName();
    List<WorldNode> nodes = world.seats().stream()
        .map(seat -> new WorldNode(seat.index(), Names.workerPod(name, world.generation(), seat.index()), seat.node(),
            seat.nodeRank(), seat.domain(), seat.rack()))
        .toList();
    return new WorldStatus(world.generation(), job.getSpec().gpusPerWorker, nodes, CommittedSpec.of(job.getSpec()));
  }

  private record ConditionSetter(TrainingJobStatus status, long generation, String now) {
    void set(String type, boolean value, String reason, String message) {
      status.conditions = Conditions.set(status.conditions, type, value, reason, message, generation, now);
    }
  }
}
