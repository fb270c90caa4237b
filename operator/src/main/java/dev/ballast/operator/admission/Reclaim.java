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
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Who gives way to a job waiting for room to reach its own workers.min (docs/elastic.md, "Reclaim" and "Preemption").
 * Pure: the caller hands in every job's room, read from admission's view.
 *
 * <p>Waiting jobs are served by priority (their pods', {@link Priorities}), highest first, then oldest first. For the
 * first one that running jobs can make room for:
 * <ul>
 *   <li><b>reclaim</b>: reclaimable jobs of no higher priority running above their workers.min give back workers;
 *   <li><b>preemption</b>, only when no reclaim can make the room and the waiting job's class does not say
 *       {@code preemptionPolicy: Never}: jobs of strictly lower priority stop their worlds.
 * </ul>
 * Reclaim takes from one job where one can make the room (the lowest-priority, then newest, such job), so that one
 * world is replaced rather than several. Otherwise the jobs are taken lowest priority, then newest, first, each at its
 * smallest, until the waiting job's workers.min fits beside their next worlds; then each, the most important first,
 * keeps as much as the room allows, or all of it (it is spared, as the scheduler reprieves victims). Preemption stops
 * lower-priority worlds so; where taking back the lenders' borrowed workers first (each at its smallest, then worlds
 * stopped in turn, then stopped worlds spared before borrowed workers) stops fewer worlds, or only that makes the room,
 * it does that instead.
 * A job waiting within its namespace's ResourceQuotas ({@link WorldLifecycle#waitingForQuota}) is served the same
 * way: its workers.min must fit both the cluster and what its quotas let in ({@link QuotaRoom}) beside the next
 * worlds, so only jobs of its namespace free its quota, and jobs elsewhere give way only where the cluster is short
 * too.
 * Reclaim comes first because every job keeps running. A world that has not yet run its class's minimum runtime
 * ({@link Priorities#minRuntime}) gives way to no one: the rule chooses among the others, or waits for it.
 * Every job's reconcile computes the same answer from the same jobs, so the jobs chosen give way, and no others.
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
   * How many workers of a waiting job its namespace's ResourceQuotas let in once the jobs {@code nextSizes} names
   * ("namespace/name") have shrunk to the sizes it gives them (0: stopped), every other pod counted as it is.
   */
  @FunctionalInterface
  public interface QuotaRoom {
    /** No quota limits the job. */
    QuotaRoom UNLIMITED = nextSizes -> Integer.MAX_VALUE;

    int workers(Map<String, Integer> nextSizes);
  }

  /**
   * A job waiting for room, or for its quota, to reach its workers.min; {@code now} is the cluster as it is (it holds
   * no pods).
   *
   * @param mayPreempt whether it may preempt jobs of lower priority ({@link Priorities#mayPreempt})
   * @param underWay the jobs already giving way to it, with the size each gives way down to
   * @param quota what its namespace's quotas let in
   */
  public record Waiting(String job, int priority, Instant created, TrainingJobSpec spec, ClusterCapacity now,
      boolean mayPreempt, List<Giving> underWay, QuotaRoom quota) {
    public Waiting {
      underWay = List.copyOf(underWay);
    }

    /** A job no quota limits. */
    public Waiting(String job, int priority, Instant created, TrainingJobSpec spec, ClusterCapacity now,
        boolean mayPreempt, List<Giving> underWay) {
      this(job, priority, created, spec, now, mayPreempt, underWay, QuotaRoom.UNLIMITED);
    }

    /** A job that may preempt, and that no job gives way to yet. */
    public Waiting(String job, int priority, Instant created, TrainingJobSpec spec, ClusterCapacity now) {
      this(job, priority, created, spec, now, true, List.of());
    }
  }

  /** A job giving way now: its next world has {@code size} workers (0: preempted, none). */
  public record Giving(Lender lender, int size) {}

  /**
   * {@code lender} shrinks to {@code size} workers so that {@code forJob}'s {@code forWorkers} (its workers.min) fit;
   * a size of 0 stops its world ({@link #preempts}). {@code forQuota}: the cluster has room for them, their
   * namespace's quota has not.
   */
  public record Yield(String lender, int size, String forJob, int forWorkers, boolean forQuota) {
    /** A yield for room. */
    public Yield(String lender, int size, String forJob, int forWorkers) {
      this(lender, size, forJob, forWorkers, false);
    }

    /** What the job it gives way to waits for, in a person's words. */
    public String waitsFor() {
      return forJob + (forQuota ? " waits for the quota of its namespace to let in its workers.min ("
          : " waits for room for its workers.min (") + forWorkers + ")";
    }

    /** Whether the lender is preempted: its whole world stops, and it waits for room for its workers.min again. */
    public boolean preempts() {
      return size == 0;
    }
  }

  /**
   * Whether {@code job} gives way now: empty unless it is the job the rule picks among {@code jobs}.
   *
   * @param roomWithout the cluster as it would be without a job's own pods
   * @param quota what a waiting job's namespace quotas let in ({@link QuotaRoom#UNLIMITED} where none limits it)
   */
  public static Optional<Yield> forJob(TrainingJob job, Collection<TrainingJob> jobs,
      Function<TrainingJob, ClusterCapacity> roomWithout, Function<TrainingJob, QuotaRoom> quota,
      Priorities priorities, Instant now) {
    if (!WorldLifecycle.mayGiveWay(job) || protectedUntil(job, priorities, now).isPresent()) return Optional.empty();
    Turn turn = Turn.of(jobs, roomWithout, quota, priorities, now);
    if (!turn.mayMatter().test(job)) return Optional.empty();
    String key = WorldLifecycle.key(job);
    return choose(turn.waiting(), turn.lenders(jobs, j -> protectedUntil(j, priorities, now).isEmpty())).stream()
        .filter(y -> y.lender().equals(key)).findFirst();
  }

  /**
   * The jobs that would give way to the waiting {@code job} now but for their class's minimum runtime, each with when
   * that runtime ends; empty when none would, when other jobs make the room, or when no world is kept by a minimum
   * runtime (then no room is read).
   */
  public static Map<String, Instant> heldBackFor(TrainingJob job, Collection<TrainingJob> jobs,
      Function<TrainingJob, ClusterCapacity> roomWithout, Function<TrainingJob, QuotaRoom> quota,
      Priorities priorities, Instant now) {
    Map<String, Instant> kept = new TreeMap<>();
    jobs.stream().filter(WorldLifecycle::mayGiveWay)
        .forEach(j -> protectedUntil(j, priorities, now).ifPresent(until -> kept.put(WorldLifecycle.key(j), until)));
    if (kept.isEmpty() || !WorldLifecycle.waitingForMin(job)) return Map.of();
    Turn turn = Turn.of(jobs, roomWithout, quota, priorities, now);
    String key = WorldLifecycle.key(job);
    if (choose(turn.waiting(), turn.lenders(jobs, j -> !kept.containsKey(WorldLifecycle.key(j)))).stream()
        .anyMatch(y -> y.forJob().equals(key))) {
      return Map.of(); // others make the room
    }
    Map<String, Instant> held = new TreeMap<>();
    choose(turn.waiting(), turn.lenders(jobs, j -> true)).stream()
        .filter(y -> y.forJob().equals(key) && kept.containsKey(y.lender()))
        .forEach(y -> held.put(y.lender(), kept.get(y.lender())));
    return held;
  }

  /**
   * One turn of the rule over {@code jobs}: the waiting jobs, and which running jobs could give way to one of them
   * ({@code mayMatter}: only those are looked at, and their room read; often none is).
   */
  private record Turn(List<Waiting> waiting, Predicate<TrainingJob> mayMatter, Function<TrainingJob, Lender> lender) {
    static Turn of(Collection<TrainingJob> jobs, Function<TrainingJob, ClusterCapacity> roomWithout,
        Function<TrainingJob, QuotaRoom> quota, Priorities priorities, Instant now) {
      Function<TrainingJob, Lender> lender = j -> new Lender(WorldLifecycle.key(j),
          priorities.of(j.getSpec().template), AdmissionQueue.created(j), j.getSpec(),
          j.getStatus().world.nodes.size(), roomWithout.apply(j), WorldLifecycle.mayLend(j));
      Map<String, TrainingJob> byKey = new TreeMap<>();
      jobs.forEach(j -> byKey.put(WorldLifecycle.key(j), j));
      List<Waiting> waiting = jobs.stream().filter(WorldLifecycle::waitingForMin)
          .map(j -> new Waiting(WorldLifecycle.key(j), priorities.of(j.getSpec().template), AdmissionQueue.created(j),
              j.getSpec(), roomWithout.apply(j), priorities.mayPreempt(j.getSpec().template),
              WorldLifecycle.givingWayFor(j, jobs, now).stream().map(byKey::get)
                  .map(g -> new Giving(lender.apply(g), nextSize(g))).toList(), quota.apply(j)))
          .filter(w -> minimumOf(w) != null)
          .toList();
      int top = waiting.stream().mapToInt(Waiting::priority).max().orElse(Integer.MIN_VALUE);
      int topPreempting = waiting.stream().filter(Waiting::mayPreempt).mapToInt(Waiting::priority).max()
          .orElse(Integer.MIN_VALUE);
      Predicate<TrainingJob> mayMatter = j -> {
        int p = priorities.of(j.getSpec().template);
        return (WorldLifecycle.mayLend(j) && p <= top) || p < topPreempting;
      };
      return new Turn(waiting, mayMatter, lender);
    }

    /** The running jobs of {@code jobs} that may give way to a waiting job and that {@code chosen} allows. */
    List<Lender> lenders(Collection<TrainingJob> jobs, Predicate<TrainingJob> chosen) {
      return jobs.stream().filter(WorldLifecycle::mayGiveWay).filter(chosen).filter(mayMatter).map(lender).toList();
    }
  }

  /**
   * Until when {@code job}'s world is kept from giving way by its class's minimum runtime, counted from when the world
   * ran (all its workers running), or from its commit while it has not run yet, to the next whole second; empty when
   * it is not kept.
   */
  public static Optional<Instant> protectedUntil(TrainingJob job, Priorities priorities, Instant now) {
    Duration minRuntime = priorities.minRuntime(job.getSpec().template);
    var s = job.getStatus();
    String since = s == null ? null : s.worldRunningTime != null ? s.worldRunningTime : s.worldCommitTime;
    if (minRuntime.isZero() || since == null) return Optional.empty();
    Instant end = Instant.parse(since).plus(minRuntime);
    Instant until = end.getNano() == 0 ? end : end.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1); // as people read it
    return now.isBefore(until) ? Optional.of(until) : Optional.empty();
  }

  /** The size of the next world of a job giving way: 0 when preempted, else its reclaim's. */
  private static int nextSize(TrainingJob giving) {
    var t = giving.getStatus().transition;
    if (WorldLifecycle.PREEMPTED.equals(t.reason)) return 0;
    return t.workers != null ? t.workers : giving.getStatus().world.nodes.size();
  }

  /**
   * The rule over every waiting job and every running job that may give way, in any order: the jobs that give way
   * now, all for the same waiting job (by reclaim, by preemption, or both); empty when none does.
   */
  public static List<Yield> choose(List<Waiting> waiting, List<Lender> lenders) {
    List<Lender> lendersInTurn = lenders.stream().sorted(Comparator.comparingInt(Lender::priority)
        .thenComparing(Comparator.comparing(Lender::created).reversed()).thenComparing(Lender::job)).toList();
    List<Waiting> waitingInTurn = waiting.stream().sorted(Comparator.comparingInt(Waiting::priority).reversed()
        .thenComparing(Waiting::created).thenComparing(Waiting::job)).toList();
    for (Waiting w : waitingInTurn) {
      GangRequest wanted = minimumOf(w);
      if (wanted == null || fitsBeside(w, wanted, List.of(), List.of())) {
        continue; // nobody can make its room, or it fits (once the jobs giving way to it have): it needs no one
      }
      // a job gives nothing back to one of lower priority, and only a strictly lower priority is preempted
      List<Step> lending = lendersInTurn.stream().filter(l -> l.priority() <= w.priority() && l.reclaimable())
          .map(l -> new Step(l, smallest(l))).filter(s -> s.size() > 0).toList();
      for (Step lend : lending) { // one world replaced rather than several, where one job can make the room
        List<Yield> alone = giveWay(w, wanted, List.of(lend));
        if (!alone.isEmpty()) return alone;
      }
      List<Yield> reclaim = giveWay(w, wanted, lending);
      if (!reclaim.isEmpty()) return reclaim;
      List<Step> stops = lendersInTurn.stream().filter(l -> l.priority() < w.priority()).map(l -> new Step(l, 0))
          .toList();
      if (!w.mayPreempt() || stops.isEmpty()) continue;
      List<Yield> preempt = giveWay(w, wanted, stops);
      // with borrowed workers taken back first, fewer worlds may need to stop (or only then enough can)
      List<Yield> mixed = lending.isEmpty() ? List.of()
          : giveWay(w, wanted, Stream.concat(lending.stream(), stops.stream()).toList());
      if (!mixed.isEmpty() && (preempt.isEmpty() || stopped(mixed) < stopped(preempt))) return mixed;
      if (!preempt.isEmpty()) return preempt;
    }
    return List.of();
  }

  private static long stopped(List<Yield> yields) {
    return yields.stream().filter(Yield::preempts).count();
  }

  /** One step of a search: {@code lender}'s next world down to {@code size} workers (0: its world stops). */
  private record Step(Lender lender, int size) {}

  /**
   * The jobs that give way so that {@code wanted} fits, each with the size it keeps (0 when preempted). The steps are
   * taken in turn until {@code wanted} fits beside the next worlds; then they are undone as far as the room allows,
   * the last first (the most important job stopped is spared first, and borrowed workers are kept last): a step down
   * to a reclaim's size undoes to any valid size of at least workers.min, a preemption only to the size before it.
   * Empty when all the steps together would not do.
   */
  private static List<Yield> giveWay(Waiting w, GangRequest wanted, List<Step> steps) {
    List<Lender> group = steps.stream().map(Step::lender).distinct().toList();
    if (!fitsBeside(w, wanted, group, group.stream().map(l -> 0).toList())) {
      return List.of(); // not even without all their pods: a bound that spares trying them one by one
    }
    List<Integer> sizes = new ArrayList<>(group.stream().map(Lender::size).toList());
    List<Integer> before = new ArrayList<>();
    for (int taken = 0; taken < steps.size(); taken++) {
      before.add(sizes.set(group.indexOf(steps.get(taken).lender()), steps.get(taken).size()));
      if (!fitsBeside(w, wanted, group, sizes)) continue;
      for (int k = taken; k >= 0; k--) {
        Step s = steps.get(k);
        int i = group.indexOf(s.lender());
        if (sizes.get(i) != s.size()) continue; // a later step took it further down, and stays
        for (int size = before.get(k); size > s.size(); size--) {
          boolean valid = size == before.get(k) || (s.size() > 0 && size >= s.lender().spec().workers.min
              && WorldSizes.largestValid(size, s.lender().spec()) == size);
          if (!valid) continue;
          sizes.set(i, size);
          if (fitsBeside(w, wanted, group, sizes)) break;
          sizes.set(i, s.size());
        }
      }
      List<Yield> yields = new ArrayList<>();
      boolean forQuota = GangPlacer.place(w.now().nodes(), w.now().used(), wanted) instanceof Placement.Placed;
      for (int i = 0; i < group.size(); i++) {
        if (sizes.get(i) < group.get(i).size()) {
          yields.add(new Yield(group.get(i).job(), sizes.get(i), w.job(), w.spec().workers.min, forQuota));
        }
      }
      return yields;
    }
    return List.of();
  }

  /** The smallest valid size below the lender's, at least its workers.min; 0 when there is none. */
  private static int smallest(Lender l) {
    for (int size = l.spec().workers.min; size < l.size(); size++) {
      if (WorldSizes.largestValid(size, l.spec()) == size) return size;
    }
    return 0;
  }

  /**
   * Whether {@code wanted} fits beside the next worlds of the jobs giving way to {@code w} already and of the jobs of
   * {@code group} whose {@code sizes} are below their own (placed in turn as admission would place them, from the
   * room without their pods; none for a size of 0), and within {@code w}'s quota once they have shrunk; the others,
   * and every other job, keep their pods.
   */
  static boolean fitsBeside(Waiting w, GangRequest wanted, List<Lender> candidates, List<Integer> candidateSizes) {
    List<Lender> group = new ArrayList<>(w.underWay().stream().map(Giving::lender).toList());
    group.addAll(candidates);
    List<Integer> sizes = new ArrayList<>(w.underWay().stream().map(Giving::size).toList());
    sizes.addAll(candidateSizes);
    Map<String, Integer> nextSizes = new TreeMap<>();
    for (int i = 0; i < group.size(); i++) {
      if (sizes.get(i) < group.get(i).size()) nextSizes.merge(group.get(i).job(), sizes.get(i), Math::min);
    }
    int quotaLetsIn = w.quota().workers(nextSizes);
    if (WorldSizes.largestValid(quotaLetsIn, w.spec()) < w.spec().workers.min) return false;
    ClusterCapacity now = w.now();
    Map<String, Resources> used = new TreeMap<>(now.used());
    for (int i = 0; i < group.size(); i++) {
      if (sizes.get(i) >= group.get(i).size()) continue;
      Map<String, Resources> without = group.get(i).withoutOwnPods().used();
      now.used().forEach((node, all) -> {
        Resources own = all.minus(without.getOrDefault(node, Resources.NONE));
        used.computeIfPresent(node, (n, left) -> left.minus(own));
      });
    }
    for (int i = 0; i < group.size(); i++) {
      Lender l = group.get(i);
      int size = sizes.get(i);
      if (size == 0 || size >= l.size()) continue;
      var next = GangAdmission.choose(l.spec(), size, new ClusterCapacity(now.nodes(), used), 0, Set.of());
      if (!(next instanceof GangAdmission.Result.Admitted admitted)) return false;
      Resources perWorker = WorkerRequest.of(l.spec()).perWorker(); // with its pod slot
      for (Seat seat : admitted.world().seats()) used.merge(seat.node(), perWorker, Resources::plus);
    }
    return GangPlacer.place(now.nodes(), used, wanted) instanceof Placement.Placed;
  }

  /**
   * The gang of the waiting job's workers.min; null when nobody can make room for it: its spec was edited into one it
   * cannot run with (its own reconcile says so), or it would not fit even an empty cluster.
   */
  private static GangRequest minimumOf(Waiting w) {
    return WorkerRequest.minimumEverFitting(w.spec(), w.now().nodes());
  }
}
