package dev.ballast.operator.admission;

import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobSpec;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.observe.ClusterCapacity;
import dev.ballast.operator.observe.Priorities;
import dev.ballast.operator.placement.GpuNode;
import dev.ballast.operator.placement.Resources;
import dev.ballast.operator.world.Seat;
import dev.ballast.operator.world.WorldLifecycle;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;

/**
 * Jobs waiting for room take it in turn (docs/elastic.md, "Admission order"): by priority, highest first, then oldest
 * first (creation time, then namespace/name), the order reclaim serves them in. A job admits its world only in the
 * room the jobs ahead of it leave: each job ahead whose world fits now takes it, placed as its own admission will place
 * it. Room no job ahead can use is taken by the jobs behind (backfill, as Kueue's default BestEffortFIFO), so a large
 * job that does not fit holds no one back, until it has waited its spec.elastic.reserveAfterSeconds: then it reserves
 * the room it needs, and the jobs behind it that could use its nodes wait until it runs (as Volcano's
 * sla-waiting-time), so that room freed by ending jobs gathers for it. Pure.
 */
public final class AdmissionQueue {
  private AdmissionQueue() {}

  /**
   * A job waiting ahead of the one being admitted, with the nodes its admission avoids.
   *
   * @param reservingSince since when it waits, once that is longer than its spec.elastic.reserveAfterSeconds; null
   *     while it does not reserve
   * @param quotaWorkers how many workers its namespace's quotas let in ({@link NamespaceQuota}): it takes no more
   */
  public record Ahead(String job, int priority, TrainingJobSpec spec, Set<String> avoid, Instant reservingSince,
      int quotaWorkers) {
    public Ahead {
      avoid = Set.copyOf(avoid);
    }

    /** A job ahead that does not reserve, and that no quota limits. */
    public Ahead(String job, int priority, TrainingJobSpec spec, Set<String> avoid) {
      this(job, priority, spec, avoid, null, Integer.MAX_VALUE);
    }
  }

  /** A job ahead whose world fits now, and its size. */
  public record Taking(Ahead job, int workers) {}

  /**
   * How many workers of a job its quotas let in once the jobs ahead of it have taken theirs ({@code before}): jobs of
   * one namespace share its quotas in turn, as they share the cluster's room.
   */
  @FunctionalInterface
  public interface QuotaBeside {
    /** Each job ahead within its own quota, as if no job before it took any. */
    QuotaBeside EACH_ALONE = (job, before) -> job.quotaWorkers();

    int workers(Ahead job, List<Taking> before);
  }

  /**
   * The room the jobs ahead leave ({@code left}), the jobs ahead that take room, and those that do not fit but reserve
   * the room they need (and would fit the cluster were it empty: one that never could reserves nothing).
   */
  public record Left(ClusterCapacity left, List<Taking> taking, List<Ahead> reserving) {}

  /**
   * The jobs of {@code jobs} waiting for room or for their quota ahead of {@code job}, first first (one its quota keeps
   * out holds no one back: {@link #after}); none for a job that does not queue:
   * one whose running world is being replaced (a restart, a resize) keeps its place until its next world finds no
   * room, as growth, reclaim and preemption already weigh it. A job in a backoff (after a restart or a binding
   * timeout) cannot take room before it ends, and holds no one back meanwhile (as Kueue requeues a workload only
   * after its backoff).
   */
  public static List<Ahead> ahead(TrainingJob job, Collection<TrainingJob> jobs, Priorities priorities,
      Instant now) {
    return ahead(job, jobs, priorities, now, j -> Integer.MAX_VALUE);
  }

  /** As {@link #ahead(TrainingJob, Collection, Priorities, Instant)}, each job ahead within its quota's workers. */
  public static List<Ahead> ahead(TrainingJob job, Collection<TrainingJob> jobs, Priorities priorities,
      Instant now, ToIntFunction<TrainingJob> quotaWorkers) {
    if (!queues(job)) return List.of();
    Comparator<TrainingJob> first = order(priorities);
    String uid = job.getMetadata().getUid();
    return jobs.stream().filter(j -> uid == null || !uid.equals(j.getMetadata().getUid()))
        .filter(WorldLifecycle::waitingForMin)
        .filter(j -> !inBackoff(j, now))
        .filter(j -> first.compare(j, job) < 0)
        .sorted(first)
        .map(j -> new Ahead(WorldLifecycle.key(j), priorities.of(j.getSpec().template), j.getSpec(),
            GangAdmission.avoidedNodes(j.getStatus()), reservingSince(j, now), quotaWorkers.applyAsInt(j)))
        .toList();
  }

  static boolean inBackoff(TrainingJob job, Instant now) {
    var s = job.getStatus();
    String restart = s.transition == null ? null : s.transition.notBefore;
    String binding = s.bindingBackoff == null ? null : s.bindingBackoff.notBefore;
    return Stream.of(restart, binding).anyMatch(t -> t != null && now.isBefore(Instant.parse(t)));
  }

  /** Since when {@code job} waits, once that is longer than its spec.elastic.reserveAfterSeconds; else null. */
  static Instant reservingSince(TrainingJob job, Instant now) {
    Integer after = job.getSpec().elastic.reserveAfterSeconds;
    String since = WorldLifecycle.waitingSince(job);
    if (after == null || since == null) return null;
    Instant from = Instant.parse(since);
    return now.isBefore(from.plusSeconds(after)) ? null : from;
  }

  /** Whether a job ahead reserves: it has waited long enough, and its workers.min would fit the empty cluster. */
  private static boolean reserves(Ahead a, List<GpuNode> nodes) {
    return a.reservingSince() != null && WorkerRequest.minimumEverFitting(a.spec(), nodes) != null;
  }

  /** Whether some node is eligible for a worker of both specs (the test growth yields by, too). */
  static boolean shareNodes(TrainingJobSpec a, TrainingJobSpec b, List<GpuNode> nodes) {
    return !WorkerRequest.eligibleNodes(b, WorkerRequest.eligibleNodes(a, nodes)).isEmpty();
  }

  /** Whether {@code job} takes a place in the queue: it is new, has no world, or waits for room or quota already. */
  static boolean queues(TrainingJob job) {
    TrainingJobStatus s = job.getStatus();
    return s == null || s.world == null || WorldLifecycle.waitingForMin(job);
  }

  /** Priority, highest first; then creation time, oldest first; then namespace/name. */
  static Comparator<TrainingJob> order(Priorities priorities) {
    return Comparator.comparingInt((TrainingJob j) -> -priorities.of(j.getSpec().template))
        .thenComparing(AdmissionQueue::created).thenComparing(WorldLifecycle::key);
  }

  static Instant created(TrainingJob job) {
    String t = job.getMetadata().getCreationTimestamp();
    return t == null ? Instant.EPOCH : Instant.parse(t);
  }

  /**
   * The room left in {@code capacity} once every job of {@code ahead} whose world fits has taken it, in turn, each
   * within what {@code quota} lets in beside the jobs before it.
   */
  public static Left after(ClusterCapacity capacity, List<Ahead> ahead, QuotaBeside quota) {
    Map<String, Resources> used = new TreeMap<>(capacity.used());
    List<Taking> taking = new ArrayList<>();
    List<Ahead> reserving = new ArrayList<>();
    long freeGpus = 0; // a bound that skips placing a job that could not fit the free GPUs of all nodes together
    for (var node : capacity.nodes()) {
      long inUse = used.getOrDefault(node.name(), Resources.NONE).get(Resources.GPU);
      freeGpus += Math.max(0, node.allocatableGpus() - inUse);
    }
    for (Ahead a : ahead) {
      GangAdmission.Result r;
      try {
        int max = WorldSizes.largestValid(Math.min(a.spec().workers.max, quota.workers(a, taking)), a.spec());
        if (max < a.spec().workers.min) continue; // its quota lets too few in: it waits for that, not for room
        boolean mayFit = (long) a.spec().workers.min * a.spec().gpusPerWorker <= freeGpus;
        r = mayFit ? GangAdmission.choose(a.spec(), max,
            new ClusterCapacity(capacity.nodes(), used), 0, a.avoid()) : null;
        if (!(r instanceof GangAdmission.Result.Admitted) && reserves(a, capacity.nodes())) reserving.add(a);
      } catch (IllegalArgumentException e) {
        continue; // a spec it cannot run with: its own reconcile says so, and it takes nothing
      }
      if (!(r instanceof GangAdmission.Result.Admitted admitted)) continue;
      Resources perWorker = WorkerRequest.of(a.spec()).perWorker();
      for (Seat seat : admitted.world().seats()) used.merge(seat.node(), perWorker, Resources::plus);
      freeGpus -= (long) admitted.world().size() * a.spec().gpusPerWorker;
      taking.add(new Taking(a, admitted.world().size()));
    }
    return new Left(new ClusterCapacity(capacity.nodes(), used), taking, reserving);
  }
}
