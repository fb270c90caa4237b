package dev.ballast.operator.world;

import dev.ballast.operator.admission.InsufficientRoom;
import dev.ballast.operator.admission.NamespaceQuota;
import dev.ballast.operator.admission.Reclaim;
import dev.ballast.operator.admission.WorkerRequest;
import dev.ballast.operator.admission.WorldSizes;
import dev.ballast.operator.api.RecoverySpec;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobSpec;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import dev.ballast.operator.api.WorldNode;
import dev.ballast.operator.api.WorldTransition;
import dev.ballast.operator.desired.Labels;
import dev.ballast.operator.desired.Names;
import dev.ballast.operator.desired.WorldSpecHash;
import dev.ballast.operator.placement.Exclusion;
import dev.ballast.operator.placement.GangPlacer;
import dev.ballast.operator.placement.GpuNode;
import dev.ballast.operator.placement.NodeProblem;
import dev.ballast.operator.placement.Taint;
import dev.ballast.operator.status.Conditions;
import dev.ballast.operator.status.StatusAggregator;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Decides the next step of a job's world. Pure: its inputs are the job (spec and status), the job's worker
 * pods, the cluster view and the time, all observed from the API server, so an operator restart re-derives
 * the same decision and every transition is unit-tested. The contract is docs/elastic.md.
 *
 * <p>Worlds are numbered by generation. A world is <em>admitted</em> (pods created gated, nodes chosen),
 * <em>released</em> (all gates removed together) and <em>committed</em> once every pod is bound. A committed
 * world is replaced, never patched: a failure, a lost node, a drain, a spec change or a resize first records
 * a {@link WorldTransition} in status, then stops every pod of the world, and only when all have stopped is
 * the next generation admitted. Pods on lost nodes count as stopped (they are fenced by their generation).
 */
public final class WorldLifecycle {
  /** How often a job that could grow looks for room again when nothing else wakes it. */
  static final Duration GROWTH_RECHECK = Duration.ofSeconds(30);
  /** How often a stopping world is looked at again should a pod event be missed. */
  static final Duration STOPPING_RECHECK = Duration.ofSeconds(10);
  /** How many workers whose containers cannot start the Ready condition names (a world may have hundreds). */
  static final int SHOWN_PROBLEMS = 3;
  /** The transition of a job giving workers above workers.min back to a waiting job. */
  public static final String RECLAIMED = "Reclaimed";
  /** The transition of a job whose world stops for a waiting job of higher priority (also its Admitted reason then). */
  public static final String PREEMPTED = InsufficientRoom.PREEMPTED;
  /** The restart of a world whose workers did not all run within spec.recovery.startupTimeoutSeconds. */
  public static final String STARTUP_TIMEOUT = "StartupTimeout";
  /** The reason a job fails once it has been active for spec.activeDeadlineSeconds. */
  public static final String DEADLINE_EXCEEDED = "DeadlineExceeded";
  /**
   * Beyond the lender's checkpoint grace, how long a waiting job waits for a job giving way to it, and a preempted job
   * leaves the room it freed to the job it was preempted for.
   */
  static final Duration RECLAIM_SLACK = Duration.ofSeconds(60);

  private WorldLifecycle() {}

  public static Decision decide(TrainingJob job, List<Pod> workerPods, ClusterView cluster, Instant now) {
    return new Decider(job, workerPods, cluster, now).decide();
  }

  /**
   * Whether {@link ClusterView#placeableWorkers} matters now: the committed world runs, no transition is under
   * way, and it is below workers.min, above it with growth allowed (cooldown over, no job waiting), or both.
   */
  public static boolean wantsRoom(TrainingJob job, List<String> waitingJobs, Instant now) {
    TrainingJobStatus s = job.getStatus();
    if (s == null || s.world == null || s.transition != null || s.phase != Phase.Running) return false;
    int size = s.world.nodes.size();
    TrainingJobSpec spec = job.getSpec();
    if (size < spec.workers.min) return true;
    return size < spec.workers.max && waitingJobs.isEmpty() && cooldownOver(job, now);
  }

  /**
   * The other jobs {@code job}'s growth yields to ("namespace/name", sorted): those waiting for room
   * ({@link #waitingForRoom}), or for the quota of {@code job}'s own namespace ({@link #waitingForQuota}), that could
   * use a node {@code job} could grow onto, i.e. some node is eligible for a worker of both (Ready, not cordoned,
   * selected, tolerated, large enough when empty). A job waiting for other nodes (another pool, another GPU shape),
   * or for another namespace's quota, does not hold this one back; nor does one whose workers.min would not fit these
   * nodes even were they empty (no job giving way could help it either, {@link Reclaim}).
   */
  public static List<String> jobsToYieldTo(TrainingJob job, Collection<TrainingJob> others, Collection<GpuNode> nodes) {
    List<GpuNode> ours = WorkerRequest.eligibleNodes(job.getSpec(), nodes);
    List<GpuNode> all = List.copyOf(nodes);
    String namespace = job.getMetadata().getNamespace();
    return others.stream()
        .filter(other -> !other.getMetadata().getUid().equals(job.getMetadata().getUid()))
        .filter(other -> waitingForRoom(other)
            || (waitingForQuota(other) && namespace.equals(other.getMetadata().getNamespace())))
        .filter(other -> !WorkerRequest.eligibleNodes(other.getSpec(), ours).isEmpty())
        .filter(other -> WorkerRequest.minimumEverFitting(other.getSpec(), all) != null)
        .map(WorldLifecycle::key)
        .sorted().toList();
  }

  /** "namespace/name": how one job names another in status and messages. */
  public static String key(TrainingJob job) {
    return job.getMetadata().getNamespace() + "/" + job.getMetadata().getName();
  }

  /**
   * Whether the job may give way to a waiting job ({@link Reclaim}): its committed world runs with no transition
   * under way (by reclaim if it also {@link #mayLend}, else only by preemption).
   */
  public static boolean mayGiveWay(TrainingJob job) {
    TrainingJobStatus s = job.getStatus();
    return s != null && s.world != null && s.transition == null && s.phase == Phase.Running
        && !Boolean.TRUE.equals(job.getSpec().suspend) && !paused(job);
  }

  /**
   * Whether the job's reconciliation is paused (annotation ballast.dev/pause-reconciliation: "true"): the operator
   * acts on nothing of it, so it neither waits for room nor gives way.
   */
  public static boolean paused(TrainingJob job) {
    var annotations = job.getMetadata().getAnnotations();
    return annotations != null && "true".equals(annotations.get(Labels.PAUSE_RECONCILIATION));
  }

  /** Whether the job's status says its reconciliation is paused (ReconciliationPaused=True). */
  public static boolean pauseShown(TrainingJob job) {
    return job.getStatus() != null && Conditions.isTrue(job.getStatus().conditions, Conditions.RECONCILIATION_PAUSED);
  }

  /**
   * Whether the job may give workers back to a waiting job: it {@link #mayGiveWay}, runs above workers.min, and
   * spec.elastic.reclaimable is not false.
   */
  public static boolean mayLend(TrainingJob job) {
    TrainingJobSpec spec = job.getSpec();
    return mayGiveWay(job) && !Boolean.FALSE.equals(spec.elastic.reclaimable)
        && job.getStatus().world.nodes.size() > spec.workers.min;
  }

  /** Whether the job's transition gives way to another job: {@link #RECLAIMED} or {@link #PREEMPTED}. */
  public static boolean givingWay(TrainingJob job) {
    WorldTransition t = job.getStatus() == null ? null : job.getStatus().transition;
    return t != null && (RECLAIMED.equals(t.reason) || PREEMPTED.equals(t.reason));
  }

  /** Whether the job's world was preempted for {@code forJob} ("namespace/name") and the job has not run since. */
  public static boolean preempted(TrainingJob job, String forJob) {
    WorldTransition t = job.getStatus() == null ? null : job.getStatus().transition;
    return t != null && PREEMPTED.equals(t.reason) && forJob.equals(t.forJob);
  }

  /** Whether the job's admission waits for jobs giving way to it ({@link InsufficientRoom#awaitsJobsGivingWay}). */
  public static boolean awaitingJobsGivingWay(TrainingJob job) {
    return job.getStatus() != null && InsufficientRoom.awaitsJobsGivingWay(
        Conditions.falseReason(job.getStatus().conditions, Conditions.ADMITTED));
  }

  /**
   * Since when a job without a world waits for one: its last world's end ({@code status.transition.since}), or its
   * creation if it never had one; null when neither is known.
   */
  public static String waitingSince(TrainingJob job) {
    WorldTransition t = job.getStatus() == null ? null : job.getStatus().transition;
    return t != null ? t.since : job.getMetadata().getCreationTimestamp();
  }

  /** Whether the job waits for jobs ahead of it to take the room first ({@link InsufficientRoom#QUEUED_BEHIND}). */
  public static boolean queuedBehind(TrainingJob job) {
    return job.getStatus() != null && InsufficientRoom.QUEUED_BEHIND.equals(
        Conditions.falseReason(job.getStatus().conditions, Conditions.ADMITTED));
  }

  /**
   * The jobs ("namespace/name") giving way to {@code waiting} now, begun less than their checkpoint grace plus
   * {@link #RECLAIM_SLACK} ago (a job whose pods take longer to stop holds the waiting one back no longer): a reclaim
   * for it until the lender's next world is committed, a preemption for it until the preempted job's workers have
   * stopped (it then waits for room itself).
   */
  public static List<String> givingWayFor(TrainingJob waiting, Collection<TrainingJob> jobs, Instant now) {
    return keys(jobsGivingWayFor(waiting, jobs, now));
  }

  /** Those of {@link #givingWayFor} that stop their world for {@code waiting} (a preemption), not only give back. */
  public static List<String> preemptingFor(TrainingJob waiting, Collection<TrainingJob> jobs, Instant now) {
    return keys(jobsGivingWayFor(waiting, jobs, now).filter(j -> PREEMPTED.equals(j.getStatus().transition.reason)));
  }

  private static Stream<TrainingJob> jobsGivingWayFor(TrainingJob waiting, Collection<TrainingJob> jobs, Instant now) {
    String key = key(waiting);
    return jobs.stream().filter(j -> givingWay(j) && key.equals(j.getStatus().transition.forJob) && within(j, now)
        && !(PREEMPTED.equals(j.getStatus().transition.reason) && waitingForMin(j)));
  }

  private static List<String> keys(Stream<TrainingJob> jobs) {
    return jobs.map(WorldLifecycle::key).sorted().toList();
  }

  /**
   * The job {@code job} was preempted for ("namespace/name"), while that job still waits for the room and less than
   * {@code job}'s checkpoint grace plus {@link #RECLAIM_SLACK} have passed since: {@code job} is not admitted again
   * before it, so it cannot take back the room it freed.
   */
  public static Optional<String> preemptedFor(TrainingJob job, Collection<TrainingJob> jobs, Instant now) {
    WorldTransition t = job.getStatus() == null ? null : job.getStatus().transition;
    if (t == null || !PREEMPTED.equals(t.reason) || !within(job, now)) return Optional.empty();
    return jobs.stream().filter(j -> key(j).equals(t.forJob) && waitingForMin(j)).map(WorldLifecycle::key).findFirst();
  }

  /** Whether the job's transition began less than its checkpoint grace plus {@link #RECLAIM_SLACK} ago. */
  private static boolean within(TrainingJob job, Instant now) {
    String since = job.getStatus().transition.since;
    return since != null && now.isBefore(Instant.parse(since)
        .plusSeconds(job.getSpec().elastic.checkpointTimeoutSeconds).plus(RECLAIM_SLACK));
  }

  /**
   * Whether another job is waiting for GPUs to reach its workers.min (no world, or between worlds, and its
   * last admission found too little room).
   */
  public static boolean waitingForRoom(TrainingJob other) {
    return InsufficientRoom.isWaitingForRoom(waitingReason(other));
  }

  /**
   * Whether another job is waiting for its namespace's ResourceQuotas to let in its workers.min (no world, or between
   * worlds, and its last admission found the quota short: {@link NamespaceQuota#EXCEEDS_QUOTA}).
   */
  public static boolean waitingForQuota(TrainingJob other) {
    return NamespaceQuota.EXCEEDS_QUOTA.equals(waitingReason(other));
  }

  /**
   * Whether another job is waiting to reach its workers.min, for room or within its quota: other jobs may give way to
   * it ({@link Reclaim}).
   */
  public static boolean waitingForMin(TrainingJob other) {
    return waitingForRoom(other) || waitingForQuota(other);
  }

  /**
   * The reason of the job's Admitted=False while it has no running world (none yet, or between worlds): why it waits
   * (InsufficientGPUs, ExceedsQuota, QueuedBehind, ...) or how far its next world got (Placed, Binding); null when it
   * runs, is suspended, paused or ended, or has no such condition yet.
   */
  public static String waitingReason(TrainingJob job) {
    TrainingJobStatus s = job.getStatus();
    if (s == null || Boolean.TRUE.equals(job.getSpec().suspend) || paused(job)) return null;
    if (s.phase == Phase.Succeeded || s.phase == Phase.Failed || s.phase == Phase.Suspended) return null;
    if (s.world != null && s.transition == null) return null;
    return Conditions.falseReason(s.conditions, Conditions.ADMITTED);
  }

  private static boolean cooldownOver(TrainingJob job, Instant now) {
    String committed = job.getStatus().worldCommitTime;
    return committed == null
        || !now.isBefore(Instant.parse(committed).plusSeconds(job.getSpec().elastic.cooldownSeconds));
  }

  public static long committedGeneration(TrainingJob job) {
    var status = job.getStatus();
    return status == null || status.world == null || status.world.generation == null ? 0 : status.world.generation;
  }

  /** The world recorded in status (callers check that status.world is set). */
  public static World committedWorld(TrainingJob job) {
    var w = job.getStatus().world;
    return new World(w.generation, w.nodes.stream().map(WorldLifecycle::seat).toList());
  }

  private static Seat seat(WorldNode n) {
    return new Seat(n.index, n.nodeRank, n.node, n.domain, n.rack);
  }

  /** One decision's working state. */
  private static final class Decider {
    final TrainingJob job;
    final TrainingJobSpec spec;
    final TrainingJobStatus status;
    final List<WorkerPodView> pods;
    final ClusterView cluster;
    final Instant now;
    final String specHash;
    final List<Pod> stop = new ArrayList<>();
    final List<Pod> forceDelete = new ArrayList<>();
    Integer grace;
    Instant wakeAt;

    Decider(TrainingJob job, List<Pod> workerPods, ClusterView cluster, Instant now) {
      this.job = job;
      this.spec = job.getSpec();
      this.status = job.getStatus() == null ? new TrainingJobStatus() : job.getStatus();
      this.pods = workerPods.stream().map(WorkerPodView::new)
          .sorted(Comparator.comparingLong(WorkerPodView::generation).thenComparingInt(WorkerPodView::index))
          .toList();
      this.cluster = cluster;
      this.now = now;
      this.specHash = WorldSpecHash.of(spec);
    }

    Decision decide() {
      if (status.phase == Phase.Succeeded || status.phase == Phase.Failed) {
        stopLive(pods);
        return done(new WorldStep.Ended(), false);
      }
      long g = committedGeneration(job);
      WorldTransition transition = status.transition;
      if (Boolean.TRUE.equals(spec.suspend)) {
        grace = spec.elastic.checkpointTimeoutSeconds;
        stopLive(pods);
        WorldTransition t = transition != null ? transition
            : new WorldTransition("Suspended", "spec.suspend is true", g, true, null, now.toString(), null);
        return done(new WorldStep.Suspend(t), true);
      }
      Integer deadline = spec.activeDeadlineSeconds;
      if (deadline != null && status.startTime != null) {
        Instant end = Instant.parse(status.startTime).plusSeconds(deadline);
        if (!now.isBefore(end)) {
          grace = spec.elastic.checkpointTimeoutSeconds; // the trainers save what they have done
          stopLive(pods);
          return done(new WorldStep.Finish(false, DEADLINE_EXCEEDED, "active for " + deadline + " s since "
              + status.startTime + " (spec.activeDeadlineSeconds); its workers are stopped"), true);
        }
        wake(end);
      }
      // generations up to the retired one were released once and rolled back: never admitted again, their pods stop
      long used = Math.max(g, status.retiredGeneration == null ? 0 : status.retiredGeneration);
      List<WorkerPodView> newer = pods.stream().filter(p -> p.generation() > used).toList();
      List<WorkerPodView> upToCommitted = pods.stream().filter(p -> p.generation() <= g).toList();
      List<WorkerPodView> retired = pods.stream().filter(p -> p.generation() > g && p.generation() <= used).toList();
      if (transition == null && g > 0) {
        stopAll(pods.stream().filter(p -> p.generation() < g).toList(), null); // leftovers of older worlds
        stopAll(retired, null);
        if (!newer.isEmpty()) return rollBack(newer, "MixedWorld", "worker pods of generation "
            + newer.get(0).generation() + " exist while world " + g + " runs; deleting them");
        return running(g, upToCommitted);
      }

      // Between worlds: every pod of the committed world (and older) stops before the next world exists.
      boolean voluntary = transition != null && Boolean.TRUE.equals(transition.voluntary);
      List<WorkerPodView> blocking = stopAll(upToCommitted, voluntary ? spec.elastic.checkpointTimeoutSeconds : null);
      blocking.addAll(stopAll(retired, null));
      if (!blocking.isEmpty()) {
        if (!newer.isEmpty()) {
          return rollBack(newer, "MixedWorld", blocking.size() + " workers of world " + g
              + " have not stopped, yet pods of the next world exist; deleting the next world's pods");
        }
        wake(now.plus(STOPPING_RECHECK));
        long stopping = blocking.stream().mapToLong(WorkerPodView::generation).max().getAsLong();
        return done(new WorldStep.Stopping(stopping, blocking.size()), false);
      }
      if (!newer.isEmpty() || wholeWorldUnseen(used)) return admission(newer);
      if (transition != null && transition.notBefore != null && now.isBefore(Instant.parse(transition.notBefore))) {
        Instant until = Instant.parse(transition.notBefore);
        wake(until);
        return done(new WorldStep.Wait("RestartBackoff", "restart " + status.restarts + " of at most "
            + spec.restartLimit + " after " + transition.reason + ": the next world is admitted at " + until, until), true);
      }
      return place(used, transition);
    }

    /** @param used the highest generation committed or retired: the next world is one above it */
    private Decision place(long used, WorldTransition transition) {
      Integer timeout = spec.elastic.belowMinTimeoutSeconds;
      var admitted = status.conditions.stream().filter(c -> Conditions.ADMITTED.equals(c.getType())).findFirst();
      if (timeout != null && admitted.isPresent() && (InsufficientRoom.isWaitingForRoom(admitted.get().getReason())
          || NamespaceQuota.waitsForQuota(admitted.get().getReason()))) {
        String since = waitingSince(job);
        if (since != null) {
          Instant deadline = Instant.parse(since).plusSeconds(timeout);
          if (!now.isBefore(deadline)) {
            return done(new WorldStep.Finish(false, "BelowMinTimeout", "no room for workers.min ("
                + spec.workers.min + ") for " + timeout + "s (spec.elastic.belowMinTimeoutSeconds) since " + since
                + ": " + admitted.get().getMessage()), true);
          }
          wake(deadline);
        }
      }
      var backoff = status.bindingBackoff;
      if (backoff != null && backoff.notBefore != null && now.isBefore(Instant.parse(backoff.notBefore))) {
        Instant until = Instant.parse(backoff.notBefore);
        wake(until);
        return done(new WorldStep.Wait("BindingBackoff", "the scheduler did not bind a gang on nodes " + backoff.nodes
            + " " + backoff.timeouts + " times in a row; admission waits until " + until, until), true);
      }
      if (!cluster.lenders().isEmpty()) {
        Instant until = now.plus(STOPPING_RECHECK);
        wake(until);
        String reason = cluster.preempting().isEmpty() ? InsufficientRoom.AWAITING_RECLAIM
            : InsufficientRoom.AWAITING_PREEMPTION;
        return done(new WorldStep.Wait(reason, "waiting for "
            + String.join(", ", cluster.lenders()) + ", giving way to this job (status.transition says how); it is"
            + " admitted once the workers given up have stopped", until), true);
      }
      if (cluster.preemptedFor() != null) {
        Instant until = now.plus(STOPPING_RECHECK);
        wake(until);
        return done(new WorldStep.Wait(PREEMPTED, "world " + transition.fromGeneration + " was stopped for "
            + cluster.preemptedFor() + ", which has a higher priority; this job waits for room for its workers.min ("
            + spec.workers.min + ") once that job is admitted", until), true);
      }
      boolean reclaimed = transition != null && RECLAIMED.equals(transition.reason) && transition.workers != null;
      return done(new WorldStep.Place(used + 1, reclaimed ? transition.workers : spec.workers.max), true);
    }

    /**
     * Admission created a world none of whose pods the cache shows yet: waiting for them, not admitting the same
     * world again.
     */
    private boolean wholeWorldUnseen(long used) {
      UnseenPods u = cluster.unseen();
      return u != null && u.generation() > used && u.names().size() == u.worldSize() && u.pending(now);
    }

    /**
     * A new world's pods exist (or admission just created them): wait for the cache to show them all, release them
     * together, wait for binding, commit, or roll back.
     */
    private Decision admission(List<WorkerPodView> newer) {
      Set<Long> generations = newer.stream().map(WorkerPodView::generation).collect(Collectors.toSet());
      if (generations.size() > 1) {
        return rollBack(newer, "MixedWorld", "worker pods belong to different world generations " + generations
            + "; starting a fresh world");
      }
      UnseenPods unseen = cluster.unseen();
      long generation = newer.isEmpty() ? unseen.generation() : newer.get(0).generation();
      int size = newer.isEmpty() ? unseen.worldSize() : newer.get(0).worldSize();
      List<WorkerPodView> live = newer.stream().filter(p -> !p.terminating()).toList();
      if (live.size() < size) {
        // pods admission just created that the cache does not show yet exist, until the bound says they do not
        boolean awaited = unseen != null && unseen.generation() == generation && unseen.pending(now)
            && live.size() + unseen.names().size() >= size;
        if (awaited) {
          wake(unseen.deadline());
          return done(new WorldStep.AwaitPods(generation, live.size(), size, unseen.deadline()), true);
        }
        return rollBack(newer, "IncompleteGang", "only " + live.size() + " of " + size + " worker pods of world "
            + generation + " exist");
      }
      if (size < spec.workers.min || size > spec.workers.max) {
        return rollBack(newer, "WorkersChanged", "spec.workers is now " + spec.workers.min + ".." + spec.workers.max
            + " but world " + generation + " was being admitted with " + size + " workers; admitting it again");
      }
      if (live.stream().anyMatch(p -> !specHash.equals(p.specHash()))) {
        return rollBack(newer, "SpecChanged", "the spec changed while world " + generation
            + " was being admitted; admitting it again from the new spec");
      }
      Optional<String> lost = live.stream().map(p -> lossOf(p.node())).flatMap(Optional::stream).findFirst();
      if (lost.isPresent()) return rollBack(newer, "NodeLost", lost.get() + " before world " + generation + " started");
      if (live.stream().anyMatch(WorkerPodView::finished)) {
        return rollBack(newer, "WorkerFailed", "a worker of world " + generation + " ended before the world was"
            + " committed: " + live.stream().filter(WorkerPodView::finished).findFirst().get().failureDescription());
      }
      World world = new World(generation, live.stream().map(WorkerPodView::seat).toList());
      List<Integer> gated = live.stream().filter(WorkerPodView::gated).map(WorkerPodView::index).toList();
      if (!gated.isEmpty()) return done(new WorldStep.Release(world, gated), true);

      List<WorkerPodView> unbound = live.stream().filter(p -> !p.bound()).toList();
      if (unbound.isEmpty()) {
        // judged again at once: its workers may run already (bound before an operator restart), and then no pod event
        // follows to wake the job (found by ChaosTest: a job committed by a restarted operator stayed Admitted)
        wake(now);
        return done(new WorldStep.Commit(world), true);
      }
      Instant releasedAt = live.stream().map(WorkerPodView::releasedAt).flatMap(Optional::stream)
          .min(Comparator.naturalOrder()).orElse(now);
      Instant deadline = releasedAt.plus(Duration.ofSeconds(spec.admissionTimeoutSeconds));
      String schedulerSays = unbound.stream().map(WorkerPodView::schedulingMessage).flatMap(Optional::stream)
          .findFirst().orElse(null);
      if (now.isAfter(deadline)) {
        return rollBack(newer, "BindingTimeout", unbound.size() + " of " + size + " workers were not bound within "
            + spec.admissionTimeoutSeconds + "s (" + unbound.stream().map(WorkerPodView::name)
            .collect(Collectors.joining(", ")) + ")" + (schedulerSays == null ? "" : "; the scheduler says: "
            + schedulerSays) + "; releasing their GPUs and retrying");
      }
      wake(deadline.plusSeconds(1));
      return done(new WorldStep.AwaitBinding(world, size - unbound.size(), deadline, schedulerSays), true);
    }

    /** The committed world {@code g} without a transition: finish, restart, resize, or let it run. */
    private Decision running(long g, List<WorkerPodView> all) {
      World world = committedWorld(job);
      List<WorkerPodView> current = all.stream().filter(p -> p.generation() == g).toList();
      int size = world.size();

      List<WorkerPodView> failed = current.stream().filter(WorkerPodView::failed).toList();
      Optional<WorkerPodView> fatal = failed.stream().filter(p -> !ExitPolicy.retryable(p, spec.recovery)).findFirst();
      if (fatal.isPresent()) {
        stopLive(current);
        return done(new WorldStep.Finish(false, "WorkerFailed", fatal.get().failureDescription()
            + " (a fatal exit code: see spec.recovery)"), true);
      }
      if (!failed.isEmpty()) return restart(g, "WorkerFailed", failed.get(0).failureDescription());

      List<String> lostNodes = new ArrayList<>();
      for (Seat seat : world.seats()) lossOf(seat.node()).ifPresent(lostNodes::add);
      if (!lostNodes.isEmpty()) {
        return restart(g, "NodeLost", String.join("; ", new TreeSet<>(lostNodes)) + "; its workers are replaced"
            + " elsewhere or the world shrinks");
      }
      Set<Integer> present = current.stream().filter(p -> !p.terminating()).map(WorkerPodView::index)
          .collect(Collectors.toSet());
      List<Seat> missing = world.seats().stream().filter(s -> !present.contains(s.index())).toList();
      if (!missing.isEmpty()) {
        return restart(g, "WorkerLost", missing.size() + " worker pod(s) of world " + g + " were deleted or evicted: "
            + missing.stream().map(s -> podName(g, s.index())).collect(Collectors.joining(", ")));
      }
      if (current.stream().allMatch(WorkerPodView::succeeded)) {
        return done(new WorldStep.Finish(true, "AllWorkersSucceeded",
            "all " + size + " workers of world " + g + " exited 0"), true);
      }

      List<NodeProblem> drained = drainedNodes(world);
      if (!drained.isEmpty()) {
        return resize(g, "NodeDrained", drained.stream().map(p -> "node " + p.node() + " " + p.detail())
            .collect(Collectors.joining("; ")) + "; moving its workers", null);
      }
      if (current.stream().anyMatch(p -> !specHash.equals(p.specHash()))) {
        return resize(g, "SpecChanged", "fields that apply at the next world changed (template, checkpoint, topology"
            + " or balancer); starting world " + (g + 1) + " with them", null);
      }
      List<WorldStep.Note> notes = new ArrayList<>();
      int min = spec.workers.min;
      int max = spec.workers.max;
      if (size > max) {
        int target = WorldSizes.largestValid(max, spec);
        return resize(g, "WorkersChanged", "spec.workers.max is " + max + " but world " + g + " has " + size
            + " workers; shrinking to " + target, target);
      }
      Reclaim.Yield giveWay = cluster.giveWay();
      if (giveWay != null && giveWay.preempts()) {
        return resize(g, PREEMPTED, giveWay.waitsFor() + ", has a higher priority, and giving back workers above"
            + " workers.min alone cannot make that room: world " + g + " stops (no restart counted), and this job"
            + " waits for room for its workers.min (" + min + ") again", null, giveWay.forJob());
      }
      if (giveWay != null && giveWay.size() >= min && giveWay.size() < size) {
        int given = size - giveWay.size();
        return resize(g, RECLAIMED, giveWay.waitsFor() + "; giving back " + given
            + (given == 1 ? " worker" : " workers") + " above workers.min (" + min + "): world " + g + " has " + size
            + ", the next has " + giveWay.size(), giveWay.size(), giveWay.forJob());
      }
      Integer room = cluster.placeableWorkers();
      boolean inRange = size >= min;
      if (room != null) {
        int target = WorldSizes.largestValid(room, spec);
        if (!inRange && target >= min) {
          return resize(g, "WorkersChanged", "spec.workers.min is " + min + " but world " + g + " has " + size
              + " workers; growing to " + target, target);
        }
        if (inRange && target >= size + spec.elastic.minGainWorkers) {
          return resize(g, "CapacityAvailable", "room for " + target + " workers (world " + g + " has " + size
              + "); growing", target);
        }
        if (!inRange) {
          notes.add(new WorldStep.Note(Conditions.RESIZING, false, StatusAggregator.WAITING_FOR_ROOM, "spec.workers.min is " + min
              + " but world " + g + " has " + size + " workers and only " + room
              + " fit now; it keeps running until room for " + min + " appears"));
        }
      }
      int ready = (int) current.stream().filter(WorkerPodView::running).count();
      boolean allRunning = ready == size;
      Optional<WorldStep.Note> problems = allRunning ? Optional.empty() : startupProblems(current, ready, size);
      problems.ifPresent(notes::add);
      Integer startup = spec.recovery.startupTimeoutSeconds;
      if (startup != null && !allRunning && status.worldRunningTime == null && status.worldCommitTime != null) {
        Instant due = Instant.parse(status.worldCommitTime).plusSeconds(startup);
        if (!now.isBefore(due)) {
          return restart(g, STARTUP_TIMEOUT, "the workers of world " + g + " did not all run within " + startup
              + "s of its commit (spec.recovery.startupTimeoutSeconds): " + problems.map(WorldStep.Note::message)
              .orElse(ready + " of " + size + " workers are running"));
        }
        wake(due);
      }
      if (allRunning && size < max && wakeAt == null) wake(growthCheck());
      if (cluster.protectedUntil() != null) wake(cluster.protectedUntil()); // then it may give way
      for (Seat seat : world.seats()) notReadyDeadline(seat.node()).ifPresent(this::wake);

      Integer deadline = spec.recovery.progressDeadlineSeconds;
      if (deadline != null && allRunning && status.worldRunningTime != null) {
        Instant last = lastProgress(g);
        Instant due = last.plusSeconds(deadline);
        if (!now.isBefore(due)) {
          String message = "no step reported for world " + g + " since " + last + " (spec.recovery.progressDeadlineSeconds="
              + deadline + ")";
          if (spec.recovery.onNoProgress == RecoverySpec.OnNoProgress.RESTART) return restart(g, "NoProgress", message);
          notes.add(new WorldStep.Note(Conditions.PROGRESSING, false, "NoProgress", message));
        } else {
          wake(due);
          notes.add(new WorldStep.Note(Conditions.PROGRESSING, true, "StepsReported", "world " + g + " reports steps"));
        }
      }
      return done(new WorldStep.Run(world, ready, notes), inRange);
    }

    /** A Ready note naming the workers whose containers wait for anything but starting, if one does. */
    private static Optional<WorldStep.Note> startupProblems(List<WorkerPodView> current, int ready, int size) {
      List<String> problems = current.stream().filter(p -> !p.running() && !p.terminating())
          .flatMap(p -> p.startupProblem().map(x -> "pod " + p.name() + ", " + x).stream()).toList();
      if (problems.isEmpty()) return Optional.empty();
      String named = String.join("; ", problems.subList(0, Math.min(SHOWN_PROBLEMS, problems.size())))
          + (problems.size() > SHOWN_PROBLEMS ? "; and " + (problems.size() - SHOWN_PROBLEMS) + " more pods" : "");
      return Optional.of(new WorldStep.Note(Conditions.READY, false, StatusAggregator.CONTAINER_WAITING,
          ready + " of " + size + " workers are running; " + named));
    }

    private Instant growthCheck() {
      Instant cooldownEnd = status.worldCommitTime == null ? now
          : Instant.parse(status.worldCommitTime).plusSeconds(spec.elastic.cooldownSeconds);
      return cooldownEnd.isAfter(now) ? cooldownEnd : now.plus(GROWTH_RECHECK);
    }

    private Instant lastProgress(long g) {
      Instant running = Instant.parse(status.worldRunningTime);
      var b = status.balancer;
      if (b == null || b.lastStepTime == null || !Objects.equals(b.lastStepGeneration, g)) return running;
      Instant step = Instant.parse(b.lastStepTime);
      return step.isAfter(running) ? step : running;
    }

    /** Nodes of the world that still run but should be left: cordoned, newly tainted, or with too few GPUs now. */
    private List<NodeProblem> drainedNodes(World world) {
      List<String> placed = world.seats().stream().map(Seat::node).filter(cluster.nodes()::containsKey).toList();
      List<GpuNode> known = placed.stream().distinct()
          .map(n -> withoutReadinessTaints(cluster.nodes().get(n).node())).toList();
      var request = WorkerRequest.of(spec).withWorkers(1, Math.max(1, world.size()));
      return GangPlacer.revalidate(known, placed, request).stream()
          .filter(p -> p.cause() != Exclusion.NOT_READY && p.cause() != Exclusion.GONE) // lost nodes: see lossOf
          .toList();
    }

    /**
     * The node lifecycle controller's not-ready and unreachable taints mirror the Ready condition, which
     * {@link #lossOf} judges with Ballast's grace period: they are no drain (a node reporting Ready again
     * keeps them a moment longer, and must not trigger a resize).
     */
    private static GpuNode withoutReadinessTaints(GpuNode n) {
      List<Taint> taints = n.taints().stream().filter(t -> !NodeState.READINESS_TAINTS.contains(t.key())).toList();
      return new GpuNode(n.name(), n.allocatable(), n.ready(), n.unschedulable(), taints, n.domain(), n.rack(),
          n.labels());
    }

    private Decision restart(long g, String reason, String message) {
      int restarts = status.restarts == null ? 0 : status.restarts;
      if (restarts >= spec.restartLimit) {
        stopLive(pods);
        return done(new WorldStep.Finish(false, "RestartLimitExceeded", "restartLimit (" + spec.restartLimit
            + ") is exhausted after " + restarts + " restarts; last failure (" + reason + "): " + message), true);
      }
      long delay = Backoff.seconds(spec.recovery, restarts);
      var t = new WorldTransition(reason, message, g, false, null, now.toString(), now.plusSeconds(delay).toString());
      wake(now);
      return done(new WorldStep.Transition(t, true), false);
    }

    private Decision resize(long g, String reason, String message, Integer target) {
      return resize(g, reason, message, target, null);
    }

    /** @param forJob the waiting job a reclaim gives workers back to; null for other resizes */
    private Decision resize(long g, String reason, String message, Integer target, String forJob) {
      var t = new WorldTransition(reason, message, g, true, target, now.toString(), null);
      t.forJob = forJob;
      wake(now);
      return done(new WorldStep.Transition(t, false), false);
    }

    private Decision rollBack(List<WorkerPodView> gang, String reason, String message) {
      String nodes = gang.stream().map(WorkerPodView::node).filter(Objects::nonNull).sorted().distinct()
          .collect(Collectors.joining(","));
      // a bound pod may have started (its trainer may have joined, written a checkpoint, reported to the balancer)
      long started = gang.stream().filter(WorkerPodView::bound).mapToLong(WorkerPodView::generation).max().orElse(0);
      if (started > 0) { // retired in status first; its pods are stopped once that is recorded
        wake(now);
        return done(new WorldStep.RollBack(reason, message, nodes, started), true);
      }
      stopAll(gang, null);
      return done(new WorldStep.RollBack(reason, message, nodes, 0), true);
    }

    /** Stops what still runs when the job ends; finished pods stay for their logs and as the record of why. */
    private void stopLive(List<WorkerPodView> toStop) {
      stopAll(toStop.stream().filter(p -> !p.finished()).toList(), grace);
    }

    /**
     * Deletes every pod given that still runs or waits (force-deleting it where its node is gone or out of
     * service). Returns the pods that have not stopped: neither finished, nor gone, nor on a lost node.
     */
    private List<WorkerPodView> stopAll(List<WorkerPodView> toStop, Integer graceSeconds) {
      List<WorkerPodView> blocking = new ArrayList<>();
      for (WorkerPodView p : toStop) {
        if (p.finished()) {
          if (!p.terminating()) stop.add(p.pod());
          continue;
        }
        String node = p.node();
        if (p.bound() && cluster.podsMayBeForceDeletedOn(node)) {
          forceDelete.add(p.pod());
          continue;
        }
        if (!p.terminating()) {
          stop.add(p.pod());
          if (graceSeconds != null) grace = graceSeconds;
        }
        if (p.bound() && lossOf(node).isPresent()) continue; // fenced by its generation; not waited for
        blocking.add(p);
        if (p.bound()) notReadyDeadline(node).ifPresent(this::wake);
      }
      return blocking;
    }

    /** Why the node counts as lost (deleted, out of service, or NotReady beyond the grace period), if it does. */
    private Optional<String> lossOf(String node) {
      if (node == null) return Optional.empty();
      NodeState n = cluster.nodes().get(node);
      if (n == null) return Optional.of("node " + node + " was deleted");
      if (n.outOfService()) return Optional.of("node " + node + " is tainted " + NodeState.OUT_OF_SERVICE_TAINT);
      if (n.notReadySince() != null && !now.isBefore(lostAt(n))) {
        return Optional.of("node " + node + " is NotReady since " + n.notReadySince() + " (more than "
            + spec.recovery.nodeLostAfterSeconds + "s, spec.recovery.nodeLostAfterSeconds)");
      }
      return Optional.empty();
    }

    private Instant lostAt(NodeState n) {
      return n.notReadySince().plusSeconds(spec.recovery.nodeLostAfterSeconds);
    }

    private Optional<Instant> notReadyDeadline(String node) {
      NodeState n = node == null ? null : cluster.nodes().get(node);
      if (n == null || n.notReadySince() == null || !now.isBefore(lostAt(n))) return Optional.empty();
      return Optional.of(lostAt(n));
    }

    private String podName(long g, int index) {
      return Names.workerPod(job.getMetadata().getName(), g, index);
    }

    private void wake(Instant at) {
      if (wakeAt == null || at.isBefore(wakeAt)) wakeAt = at;
    }

    private Decision done(WorldStep step, boolean specInEffect) {
      return new Decision(step, stop, grace, forceDelete, wakeAt, specInEffect);
    }
  }
}
