package dev.ballast.operator.admission;

import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobSpec;
import dev.ballast.operator.observe.ClusterCapacity;
import dev.ballast.operator.observe.Priorities;
import dev.ballast.operator.placement.GangPlacer;
import dev.ballast.operator.placement.GangRequest;
import dev.ballast.operator.placement.Placement;
import dev.ballast.operator.placement.Resources;
import dev.ballast.operator.world.Seat;
import dev.ballast.operator.world.WorldLifecycle;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Who gives way to a job waiting for room to reach its own workers.min (docs/elastic.md, "Reclaim" and "Preemption").
 * Pure: the caller hands in every job's room, read from admission's view.
 *
 * <p>Waiting jobs are served by priority (their pods', {@link Priorities}), highest first, then oldest first. For the
 * first one that a single running job can make room for:
 * <ul>
 *   <li><b>reclaim</b>: the lowest-priority, then newest, reclaimable job of no higher priority running above its
 *       workers.min gives back, shrinking to the largest valid size at which the waiting job's workers.min still fits
 *       beside its next world;
 *   <li><b>preemption</b>, only when no job can reclaim for it and its class does not say {@code preemptionPolicy:
 *       Never}: the lowest-priority, then newest, job of strictly lower priority whose whole world's room fits the
 *       waiting job's workers.min stops that world.
 * </ul>
 * Reclaim comes first because every job keeps running. Every job's reconcile computes the same answer from the same
 * jobs, so one job gives way, not several. A waiting job that only several jobs together could make room for keeps
 * waiting.
 */
public final class Reclaim {
  private Reclaim() {}

  /**
   * A running job that may give way.
   *
   * @param withoutOwnPods the cluster as it would be without this job's pods (the room its next world is placed in)
   * @param reclaimable whether it may give back workers above its workers.min ({@link WorldLifecycle#mayLend})
   */
  public record Lender(String job, int priority, Instant created, TrainingJobSpec spec, int size,
      ClusterCapacity withoutOwnPods, boolean reclaimable) {
    /** A reclaimable job. */
    public Lender(String job, int priority, Instant created, TrainingJobSpec spec, int size,
        ClusterCapacity withoutOwnPods) {
      this(job, priority, created, spec, size, withoutOwnPods, true);
    }
  }

  /**
   * A job waiting for room for its workers.min; {@code now} is the cluster as it is (it holds no pods).
   *
   * @param mayPreempt whether it may preempt jobs of lower priority ({@link Priorities#mayPreempt})
   */
  public record Waiting(String job, int priority, Instant created, TrainingJobSpec spec, ClusterCapacity now,
      boolean mayPreempt) {
    /** A job that may preempt. */
    public Waiting(String job, int priority, Instant created, TrainingJobSpec spec, ClusterCapacity now) {
      this(job, priority, created, spec, now, true);
    }
  }

  /**
   * {@code lender} shrinks to {@code size} workers so that {@code forJob}'s {@code forWorkers} (its workers.min) fit;
   * a size of 0 stops its world ({@link #preempts}).
   */
  public record Yield(String lender, int size, String forJob, int forWorkers) {
    /** Whether the lender is preempted: its whole world stops, and it waits for room for its workers.min again. */
    public boolean preempts() {
      return size == 0;
    }
  }

  /**
   * Whether {@code job} gives way now: empty unless it is the job the rule picks among {@code jobs}.
   *
   * @param roomWithout the cluster as it would be without a job's own pods
   */
  public static Optional<Yield> forJob(TrainingJob job, Collection<TrainingJob> jobs,
      Function<TrainingJob, ClusterCapacity> roomWithout, Priorities priorities, Instant now) {
    if (!WorldLifecycle.mayGiveWay(job)) return Optional.empty();
    List<Waiting> waiting = jobs.stream()
        .filter(j -> WorldLifecycle.waitingForRoom(j) && WorldLifecycle.givingWayFor(j, jobs, now).isEmpty())
        .map(j -> new Waiting(WorldLifecycle.key(j), priorities.of(j.getSpec().template), created(j), j.getSpec(),
            roomWithout.apply(j), priorities.mayPreempt(j.getSpec().template)))
        .toList();
    if (waiting.isEmpty()) return Optional.empty();
    List<Lender> lenders = jobs.stream().filter(WorldLifecycle::mayGiveWay)
        .map(j -> new Lender(WorldLifecycle.key(j), priorities.of(j.getSpec().template), created(j), j.getSpec(),
            j.getStatus().world.nodes.size(), roomWithout.apply(j), WorldLifecycle.mayLend(j)))
        .toList();
    String key = WorldLifecycle.key(job);
    return choose(waiting, lenders).filter(y -> y.lender().equals(key));
  }

  private static Instant created(TrainingJob job) {
    String t = job.getMetadata().getCreationTimestamp();
    return t == null ? Instant.EPOCH : Instant.parse(t);
  }

  /** The rule over every waiting job and every running job that may give way, in any order. */
  public static Optional<Yield> choose(List<Waiting> waiting, List<Lender> lenders) {
    List<Lender> lendersInTurn = lenders.stream().sorted(Comparator.comparingInt(Lender::priority)
        .thenComparing(Comparator.comparing(Lender::created).reversed()).thenComparing(Lender::job)).toList();
    List<Waiting> waitingInTurn = waiting.stream().sorted(Comparator.comparingInt(Waiting::priority).reversed()
        .thenComparing(Waiting::created).thenComparing(Waiting::job)).toList();
    for (Waiting w : waitingInTurn) {
      GangRequest wanted;
      try {
        wanted = minimumOf(w.spec());
      } catch (IllegalArgumentException e) {
        continue; // its spec was edited into one it cannot run with: its own reconcile says so
      }
      if (GangPlacer.place(w.now().nodes(), w.now().used(), wanted) instanceof Placement.Placed) {
        continue; // it fits as things are: its own admission will find the room
      }
      for (Lender l : lendersInTurn) {
        if (l.priority() > w.priority()) break; // a job gives nothing to one of lower priority
        int size = l.reclaimable() ? yieldSize(l, wanted) : 0;
        if (size > 0) return Optional.of(new Yield(l.job(), size, w.job(), w.spec().workers.min));
      }
      if (!w.mayPreempt()) continue;
      for (Lender l : lendersInTurn) {
        if (l.priority() >= w.priority()) break; // only a strictly lower priority is preempted
        if (GangPlacer.place(l.withoutOwnPods().nodes(), l.withoutOwnPods().used(), wanted) instanceof Placement.Placed) {
          return Optional.of(new Yield(l.job(), 0, w.job(), w.spec().workers.min));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The largest valid size below the lender's, at least its workers.min, at which its next world (placed as admission
   * would place it) leaves room for {@code wanted}; 0 when none does.
   */
  static int yieldSize(Lender lender, GangRequest wanted) {
    TrainingJobSpec spec = lender.spec();
    ClusterCapacity room = lender.withoutOwnPods();
    Resources perWorker = WorkerRequest.of(spec).perWorker(); // with its pod slot
    for (int size = lender.size() - 1; size >= spec.workers.min; size--) {
      if (WorldSizes.largestValid(size, spec) != size) continue;
      if (!(GangAdmission.choose(spec, size, room, 0, Set.of()) instanceof GangAdmission.Result.Admitted next)) continue;
      Map<String, Resources> used = new TreeMap<>(room.used());
      for (Seat seat : next.world().seats()) {
        used.merge(seat.node(), perWorker, Resources::plus);
      }
      if (GangPlacer.place(room.nodes(), used, wanted) instanceof Placement.Placed) return size;
    }
    return 0;
  }

  private static GangRequest minimumOf(TrainingJobSpec spec) {
    return WorkerRequest.of(spec).withWorkers(spec.workers.min, spec.workers.min);
  }
}
