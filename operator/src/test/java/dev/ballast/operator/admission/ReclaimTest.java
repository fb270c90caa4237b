package dev.ballast.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.ParallelismSpec;
import dev.ballast.operator.api.TrainingJobSpec;
import dev.ballast.operator.observe.ClusterCapacity;
import dev.ballast.operator.placement.GpuNode;
import dev.ballast.operator.placement.Resources;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.observe.Priorities;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The reclaim rule on its own (docs/elastic.md, "Reclaim"); the decisions around it are in WorldLifecycleTest. */
class ReclaimTest {
  static final Instant T0 = Instant.parse("2026-12-06T12:00:00Z");
  static final List<GpuNode> NODES = IntStream.range(0, 6).mapToObj(i -> new GpuNode("n" + i,
      new Resources(Map.of(Resources.GPU, 8L, Resources.CPU, 1_000_000L, Resources.MEMORY, 1L << 50,
          Resources.EPHEMERAL_STORAGE, 1L << 50, Resources.PODS, 110L)),
      true, false, List.of(), "d" + i, "r0", Map.of())).toList();

  /** The cluster with one worker on each node {@code owners} names (node index to job), but {@code without}'s. */
  static ClusterCapacity room(List<String> owners, String without) {
    Map<String, Resources> used = new TreeMap<>();
    for (int i = 0; i < owners.size(); i++) {
      if (owners.get(i) != null && !owners.get(i).equals(without)) used.put("n" + i, Resources.of(Resources.GPU, 8));
    }
    return new ClusterCapacity(NODES, used);
  }

  /** No quota limits any waiting job. */
  static final Function<TrainingJob, Reclaim.QuotaRoom> NO_QUOTA = j -> Reclaim.QuotaRoom.UNLIMITED;

  static TrainingJobSpec spec(String name, int min, int max) {
    return TestJobs.job(name, min, max, 8).getSpec();
  }

  @Test
  void theLenderKeepsTheLargestSizeOfWholeGroupsThatLeavesTheWaitingJobItsMinimum() {
    List<String> owners = List.of("lender", "lender", "lender", "lender", "lender", "lender");
    TrainingJobSpec lender = spec("lender", 2, 6);
    lender.parallelism = new ParallelismSpec(16, 1); // whole groups of two workers
    var waiting = new Reclaim.Waiting("team-a/waiting", 0, T0, spec("waiting", 1, 3), room(owners, null));

    assertThat(Reclaim.choose(List.of(waiting),
        List.of(new Reclaim.Lender("team-a/lender", 0, T0, lender, 6, room(owners, "lender")))))
        .as("5 workers would leave room for one, but 5 is no whole number of groups")
        .containsExactly(new Reclaim.Yield("team-a/lender", 4, "team-a/waiting", 1));
  }

  @Test
  void waitingJobsAreServedOldestFirstAndTheNewestLenderThatCanGivesBack() {
    List<String> owners = List.of("old", "old", "old", "old", "new", "new");
    var older = new Reclaim.Waiting("team-b/older", 0, T0, spec("older", 3, 3), room(owners, null));
    var younger = new Reclaim.Waiting("team-a/younger", 0, T0.plusSeconds(5), spec("younger", 1, 1), room(owners, null));
    var oldLender = new Reclaim.Lender("team-a/old", 0, T0, spec("old", 1, 4), 4, room(owners, "old"));
    var newLender = new Reclaim.Lender("team-a/new", 0, T0.plusSeconds(9), spec("new", 1, 2), 2, room(owners, "new"));

    assertThat(Reclaim.choose(List.of(younger, older), List.of(newLender, oldLender)))
        .as("the older job first; only the old lender can free 3 workers for it")
        .containsExactly(new Reclaim.Yield("team-a/old", 1, "team-b/older", 3));
    assertThat(Reclaim.choose(List.of(younger), List.of(oldLender, newLender)))
        .containsExactly(new Reclaim.Yield("team-a/new", 1, "team-a/younger", 1));
  }

  @Test
  void nobodyGivesBackForAJobThatFitsAlreadyAndSeveralLendersGiveBackOnlyWhenNoneAloneCan() {
    List<String> owners = java.util.Arrays.asList("a", "a", "b", "b", "c", null);
    List<Reclaim.Lender> lenders = List.of(new Reclaim.Lender("team-a/a", 0, T0, spec("a", 1, 2), 2, room(owners, "a")),
        new Reclaim.Lender("team-a/b", 0, T0.plusSeconds(1), spec("b", 1, 2), 2, room(owners, "b")));
    assertThat(Reclaim.choose(List.of(new Reclaim.Waiting("team-a/fits", 0, T0, spec("fits", 1, 1), room(owners, null))),
        lenders)).as("n5 is free").isEmpty();
    assertThat(Reclaim.choose(List.of(new Reclaim.Waiting("team-a/big", 0, T0, spec("big", 3, 3), room(owners, null))),
        lenders)).as("n5 and one lender's node make two; with both lenders' nodes three")
        .containsExactly(new Reclaim.Yield("team-a/b", 1, "team-a/big", 3), new Reclaim.Yield("team-a/a", 1, "team-a/big", 3));
    assertThat(Reclaim.choose(List.of(new Reclaim.Waiting("team-a/huge", 0, T0, spec("huge", 4, 4), room(owners, null))),
        lenders)).as("both lenders at their minimum and n5 make three").isEmpty();
    assertThat(Reclaim.choose(List.of(new Reclaim.Waiting("team-a/two", 0, T0, spec("two", 2, 2), room(owners, null))),
        lenders)).as("n5 and the newer lender's node").containsExactly(new Reclaim.Yield("team-a/b", 1, "team-a/two", 2));
  }

  /**
   * A quota of {@code hard} workers in namespace team-a, used by the jobs {@code held} names (job to its workers): a
   * job giving way frees its workers above its next size.
   */
  static Reclaim.QuotaRoom quota(int hard, Map<String, Integer> held) {
    return nextSizes -> {
      int used = 0;
      for (var e : held.entrySet()) used += Math.min(e.getValue(), nextSizes.getOrDefault(e.getKey(), e.getValue()));
      return Math.max(0, hard - used);
    };
  }

  /** A job of team-a waiting for {@code min} workers, in a quota of 4 workers of which team-a/ours holds 3. */
  static Reclaim.Waiting waitingInQuota(String name, int priority, int min, ClusterCapacity now) {
    return new Reclaim.Waiting("team-a/" + name, priority, T0, spec(name, min, min), now, true, List.of(),
        quota(4, Map.of("team-a/ours", 3)));
  }

  @Test
  void aJobWaitingForItsQuotaIsGivenBackWorkersByJobsOfItsNamespaceOnlyAndOnlyAsManyAsTheQuotaNeeds() {
    List<String> owners = java.util.Arrays.asList("ours", "ours", "ours", "theirs", "theirs", null);
    var ours = new Reclaim.Lender("team-a/ours", 0, T0, spec("ours", 1, 3), 3, room(owners, "ours"));
    var theirs = new Reclaim.Lender("team-b/theirs", 0, T0.plusSeconds(9), spec("theirs", 1, 2), 2,
        room(owners, "theirs"));
    var waiting = waitingInQuota("waiting", 0, 2, room(owners, null));

    assertThat(Reclaim.choose(List.of(waiting), List.of(ours, theirs)))
        .as("the cluster has room for 1 more; team-a's quota for 1 of 2: the newer lender of team-b gives back"
            + " nothing, ours gives back one worker, which leaves room for both")
        .containsExactly(new Reclaim.Yield("team-a/ours", 2, "team-a/waiting", 2));
    assertThat(Reclaim.choose(List.of(waitingInQuota("fits", 0, 1, room(owners, null))), List.of(ours, theirs)))
        .as("room and quota for one").isEmpty();
    assertThat(Reclaim.choose(List.of(waitingInQuota("big", 0, 4, room(owners, null))), List.of(ours, theirs)))
        .as("ours at its minimum leaves the quota 3, not 4").isEmpty();

    var high = waitingInQuota("high", 1000, 4, room(owners, null));
    assertThat(Reclaim.choose(List.of(high), List.of(ours, theirs)))
        .as("a higher priority preempts: no reclaim frees 4 of the quota; ours stopped frees the quota and, with n5,"
            + " the room; theirs (newer, stopped first in the search) is spared")
        .containsExactly(new Reclaim.Yield("team-a/ours", 0, "team-a/high", 4));
  }

  @Test
  void higherPriorityIsServedFirstAndTakesOnlyFromJobsOfNoHigherPriorityTheLowestFirst() {
    List<String> owners = List.of("low", "low", "low", "high", "high", "high");
    var lowLender = new Reclaim.Lender("team-a/low", 10, T0.minusSeconds(60), spec("low", 1, 3), 3,
        room(owners, "low"));
    var highLender = new Reclaim.Lender("team-a/high", 1000, T0, spec("high", 1, 3), 3, room(owners, "high"));
    var lowWaiting = new Reclaim.Waiting("team-a/low-waiting", 10, T0, spec("low-waiting", 1, 1), room(owners, null));
    var highWaiting = new Reclaim.Waiting("team-a/high-waiting", 1000, T0.plusSeconds(5), spec("high-waiting", 2, 2),
        room(owners, null));

    assertThat(Reclaim.choose(List.of(lowWaiting), List.of(highLender)))
        .as("a job gives nothing to one of lower priority").isEmpty();
    assertThat(Reclaim.choose(List.of(lowWaiting), List.of(highLender, lowLender)))
        .containsExactly(new Reclaim.Yield("team-a/low", 2, "team-a/low-waiting", 1));
    assertThat(Reclaim.choose(List.of(lowWaiting, highWaiting), List.of(highLender, lowLender)))
        .as("the higher priority first, though younger; from the lower-priority lender, though older")
        .containsExactly(new Reclaim.Yield("team-a/low", 1, "team-a/high-waiting", 2));
  }

  @Test
  void aHigherPriorityJobPreemptsTheLowestPriorityNewestJobWhoseWorldMakesTheRoomWhenNoReclaimCan() {
    List<String> owners = List.of("old", "old", "new", "new", "mid", "mid");
    var old = new Reclaim.Lender("team-a/old", 10, T0, spec("old", 2, 2), 2, room(owners, "old"));
    var newer = new Reclaim.Lender("team-a/new", 10, T0.plusSeconds(9), spec("new", 2, 2), 2, room(owners, "new"));
    var mid = new Reclaim.Lender("team-a/mid", 500, T0, spec("mid", 1, 2), 2, room(owners, "mid"));
    var high = new Reclaim.Waiting("team-a/high", 1000, T0, spec("high", 2, 2), room(owners, null));

    assertThat(Reclaim.choose(List.of(high), List.of(old, newer)))
        .as("the newer of two at their minimum stops whole").containsExactly(new Reclaim.Yield("team-a/new", 0, "team-a/high", 2));
    assertThat(Reclaim.choose(List.of(high), List.of(old, newer)).get(0).preempts()).isTrue();
    assertThat(Reclaim.choose(List.of(high), List.of(mid, old)))
        .as("the lowest priority is preempted, though it is not the newest")
        .containsExactly(new Reclaim.Yield("team-a/old", 0, "team-a/high", 2));

    var oneNode = new Reclaim.Waiting("team-a/one", 1000, T0, spec("one", 1, 1), room(owners, null));
    assertThat(Reclaim.choose(List.of(oneNode), List.of(old, mid)))
        .as("giving back one worker above the minimum comes before stopping a lower-priority world")
        .containsExactly(new Reclaim.Yield("team-a/mid", 1, "team-a/one", 1));
    var notReclaimable = new Reclaim.Lender("team-a/mid", 500, T0, spec("mid", 1, 2), 2, room(owners, "mid"), false);
    assertThat(Reclaim.choose(List.of(oneNode), List.of(old, notReclaimable)))
        .containsExactly(new Reclaim.Yield("team-a/old", 0, "team-a/one", 1));

    var equal = new Reclaim.Waiting("team-a/equal", 10, T0, spec("equal", 2, 2), room(owners, null));
    assertThat(Reclaim.choose(List.of(equal), List.of(old, newer))).as("only a lower priority is preempted").isEmpty();
    var never = new Reclaim.Waiting("team-a/never", 1000, T0, spec("never", 2, 2), room(owners, null), false,
        List.of());
    assertThat(Reclaim.choose(List.of(never), List.of(old, newer))).as("preemptionPolicy: Never").isEmpty();
    var big = new Reclaim.Waiting("team-a/big", 1000, T0, spec("big", 6, 6), room(owners, null));
    assertThat(Reclaim.choose(List.of(big), List.of(old, newer)))
        .as("the two lower-priority worlds free four nodes, not six").isEmpty();
  }

  @Test
  void severalLowerPriorityWorldsStopTogetherWhenNoneAloneMakesTheRoomAndThoseNotNeededAreSpared() {
    List<String> owners = List.of("a", "b", "b", "c", "c", "c");
    var a = new Reclaim.Lender("team-a/a", 10, T0.plusSeconds(9), spec("a", 1, 1), 1, room(owners, "a"));
    var b = new Reclaim.Lender("team-a/b", 10, T0, spec("b", 2, 2), 2, room(owners, "b"));
    var c = new Reclaim.Lender("team-a/c", 500, T0, spec("c", 3, 3), 3, room(owners, "c"));
    var four = new Reclaim.Waiting("team-a/four", 1000, T0, spec("four", 4, 4), room(owners, null));
    assertThat(Reclaim.choose(List.of(four), List.of(c, b, a)))
        .as("a and b are taken first (lowest priority) but free three nodes; with c six; then c is needed, b (older"
            + " than a) is spared, a is needed")
        .containsExactly(new Reclaim.Yield("team-a/a", 0, "team-a/four", 4),
            new Reclaim.Yield("team-a/c", 0, "team-a/four", 4));
    var two = new Reclaim.Waiting("team-a/two", 1000, T0, spec("two", 2, 2), room(owners, null));
    assertThat(Reclaim.choose(List.of(two), List.of(c, b, a)))
        .as("a, the newest, frees one node: with b the room fits, and a is then spared")
        .containsExactly(new Reclaim.Yield("team-a/b", 0, "team-a/two", 2));
    var five = new Reclaim.Waiting("team-a/five", 1000, T0, spec("five", 5, 5), room(owners, null));
    assertThat(Reclaim.choose(List.of(five), List.of(c, b, a))).as("b and c free five")
        .containsExactly(new Reclaim.Yield("team-a/b", 0, "team-a/five", 5),
            new Reclaim.Yield("team-a/c", 0, "team-a/five", 5));
  }

  @Test
  void preemptionTakesBackBorrowedWorkersFirstWhereThatStopsFewerWorldsOrOnlyThatMakesTheRoom() {
    List<String> owners = List.of("lender", "lender", "lender", "low", "low", "peer");
    var lender = new Reclaim.Lender("team-a/lender", 1000, T0, spec("lender", 1, 3), 3, room(owners, "lender"));
    var low = new Reclaim.Lender("team-a/low", 10, T0, spec("low", 2, 2), 2, room(owners, "low"));
    var four = new Reclaim.Waiting("team-a/four", 1000, T0, spec("four", 4, 4), room(owners, null));
    assertThat(Reclaim.choose(List.of(four), List.of(lender, low)))
        .as("the lender (equal priority: it gives back, it is not preempted) frees two nodes, the low world two")
        .containsExactly(new Reclaim.Yield("team-a/lender", 1, "team-a/four", 4),
            new Reclaim.Yield("team-a/low", 0, "team-a/four", 4));

    List<String> pairs = List.of("a", "a", "b", "b", "elastic", "elastic");
    var a = new Reclaim.Lender("team-a/a", 10, T0, spec("a", 2, 2), 2, room(pairs, "a"));
    var b = new Reclaim.Lender("team-a/b", 10, T0.plusSeconds(1), spec("b", 2, 2), 2, room(pairs, "b"));
    var elastic = new Reclaim.Lender("team-a/elastic", 10, T0.plusSeconds(2), spec("elastic", 1, 2), 2,
        room(pairs, "elastic"));
    var three = new Reclaim.Waiting("team-a/three", 1000, T0, spec("three", 3, 3), room(pairs, null));
    assertThat(Reclaim.choose(List.of(three), List.of(a, b, elastic)))
        .as("worlds alone: elastic (the newest) and b stop; with elastic's borrowed worker first, only b stops")
        .containsExactly(new Reclaim.Yield("team-a/elastic", 1, "team-a/three", 3),
            new Reclaim.Yield("team-a/b", 0, "team-a/three", 3));

    List<String> withFree = java.util.Arrays.asList("old", "old", "old", "new", "new", null);
    var old = new Reclaim.Lender("team-a/old", 10, T0, spec("old", 1, 3), 3, room(withFree, "old"));
    var newer = new Reclaim.Lender("team-a/new", 10, T0.plusSeconds(1), spec("new", 2, 2), 2, room(withFree, "new"));
    var fourMore = new Reclaim.Waiting("team-a/four", 1000, T0, spec("four", 4, 4), room(withFree, null));
    assertThat(Reclaim.choose(List.of(fourMore), List.of(old, newer)))
        .as("old stopping, or new stopping and old giving back one: as many worlds stop, and the first touches one job")
        .containsExactly(new Reclaim.Yield("team-a/old", 0, "team-a/four", 4));
  }

  @Test
  void aJobAlreadyGivingWayCountsWithItsNextWorldSoThatTheOthersChosenWithItActAndNoMore() {
    List<String> owners = List.of("a", "a", "b", "b", "c", "c");
    var a = new Reclaim.Lender("team-a/a", 0, T0.plusSeconds(9), spec("a", 1, 2), 2, room(owners, "a"));
    var b = new Reclaim.Lender("team-a/b", 0, T0, spec("b", 1, 2), 2, room(owners, "b"));
    var c = new Reclaim.Lender("team-a/c", 0, T0.minusSeconds(9), spec("c", 1, 2), 2, room(owners, "c"));
    var fresh = new Reclaim.Waiting("team-a/w", 0, T0, spec("w", 2, 2), room(owners, null));
    assertThat(Reclaim.choose(List.of(fresh), List.of(a, b, c))).containsExactly(
        new Reclaim.Yield("team-a/a", 1, "team-a/w", 2), new Reclaim.Yield("team-a/b", 1, "team-a/w", 2));

    var aGiving = new Reclaim.Waiting("team-a/w", 0, T0, spec("w", 2, 2), room(owners, null), true,
        List.of(new Reclaim.Giving(a, 1)));
    assertThat(Reclaim.choose(List.of(aGiving), List.of(b, c)))
        .as("b still gives back, once a has begun (a's own reconcile came first)")
        .containsExactly(new Reclaim.Yield("team-a/b", 1, "team-a/w", 2));
    var bothGiving = new Reclaim.Waiting("team-a/w", 0, T0, spec("w", 2, 2), room(owners, null), true,
        List.of(new Reclaim.Giving(a, 1), new Reclaim.Giving(b, 1)));
    assertThat(Reclaim.choose(List.of(bothGiving), List.of(c))).as("c is not needed").isEmpty();
  }

  /** A job running {@code size} workers of {@code min}..4 in a committed world, or waiting for room when size is 0. */
  static dev.ballast.operator.api.TrainingJob job(String name, int min, int size, String priorityClass) {
    var job = TestJobs.job(name, min, Math.max(min, 4), 8);
    job.getSpec().template.getSpec().setPriorityClassName(priorityClass);
    job.setStatus(new dev.ballast.operator.api.TrainingJobStatus());
    if (size == 0) {
      job.getStatus().conditions.add(new io.fabric8.kubernetes.api.model.ConditionBuilder().withType("Admitted")
          .withStatus("False").withReason("InsufficientGPUs").build());
    } else {
      job.getStatus().phase = dev.ballast.operator.api.TrainingJobStatus.Phase.Running;
      job.getStatus().world = new dev.ballast.operator.api.WorldStatus();
      job.getStatus().world.nodes = IntStream.range(0, size).mapToObj(i -> new dev.ballast.operator.api.WorldNode())
          .toList();
    }
    return job;
  }

  @Test
  void noRoomIsReadForJobsThatCouldNotGiveWayNorForAWaitingJobNoClusterCouldHold() {
    var priorities = new dev.ballast.operator.observe.Priorities(Map.of("high", 1000), null, java.util.Set.of());
    var atMin = job("at-min", 2, 2, null);
    var above = job("above", 1, 3, null);
    java.util.Set<String> read = new java.util.TreeSet<>();
    java.util.function.Function<dev.ballast.operator.api.TrainingJob, ClusterCapacity> rooms = j -> {
      read.add(j.getMetadata().getName());
      return room(List.of("above", "above", "above", "at-min", "at-min", "x"), j.getMetadata().getName());
    };

    var equal = job("equal", 2, 0, null);
    assertThat(Reclaim.forJob(atMin, List.of(atMin, above, equal), rooms, NO_QUOTA, priorities, T0)).isEmpty();
    assertThat(read).as("a job at its minimum gives nothing to a job of its own priority: nothing to read")
        .containsExactly("equal");
    read.clear();
    assertThat(Reclaim.forJob(above, List.of(atMin, above, equal), rooms, NO_QUOTA, priorities, T0))
        .contains(new Reclaim.Yield("team-a/above", 1, "team-a/equal", 2));
    assertThat(read).containsExactly("above", "equal");

    read.clear();
    var huge = job("huge", 7, 0, "high");
    assertThat(Reclaim.forJob(atMin, List.of(atMin, above, huge), rooms, NO_QUOTA, priorities, T0)).isEmpty();
    assertThat(read).as("seven nodes would not fit six empty ones").containsExactly("huge");
  }

  @Test
  void aWorldWithinItsClassesMinimumRuntimeGivesWayToNoOneAndTheRuleTakesFromAnotherJob() {
    var plain = new Priorities(Map.of("fresh", 0, "plain", 0), null, Set.of());
    var protecting = new Priorities(Map.of("fresh", 0, "plain", 0), null, Set.of(),
        Map.of("fresh", Duration.ofMinutes(10)), List.of());
    var old = job("old", 1, 3, "plain");
    old.getMetadata().setCreationTimestamp(T0.minusSeconds(3600).toString());
    old.getStatus().worldRunningTime = T0.minusSeconds(3000).toString();
    var recent = job("recent", 1, 3, "fresh");
    recent.getMetadata().setCreationTimestamp(T0.minusSeconds(120).toString());
    recent.getStatus().worldCommitTime = T0.minusSeconds(90).toString();
    recent.getStatus().worldRunningTime = T0.minusSeconds(60).toString();
    var waiting = job("waiting", 1, 0, null);
    List<String> owners = List.of("old", "old", "old", "recent", "recent", "recent");
    Function<TrainingJob, ClusterCapacity> rooms = j -> room(owners, j.getMetadata().getName());
    List<TrainingJob> jobs = List.of(old, recent, waiting);

    assertThat(Reclaim.forJob(recent, jobs, rooms, NO_QUOTA, plain, T0)).as("the newest lender gives back")
        .contains(new Reclaim.Yield("team-a/recent", 2, "team-a/waiting", 1));
    assertThat(Reclaim.forJob(old, jobs, rooms, NO_QUOTA, plain, T0)).isEmpty();

    assertThat(Reclaim.protectedUntil(recent, protecting, T0)).as("ten minutes from when its world ran")
        .contains(T0.plusSeconds(540));
    assertThat(Reclaim.protectedUntil(old, protecting, T0)).isEmpty();
    assertThat(Reclaim.forJob(recent, jobs, rooms, NO_QUOTA, protecting, T0)).isEmpty();
    assertThat(Reclaim.forJob(old, jobs, rooms, NO_QUOTA, protecting, T0)).as("the rule takes from the other lender")
        .contains(new Reclaim.Yield("team-a/old", 2, "team-a/waiting", 1));
    assertThat(Reclaim.heldBackFor(waiting, jobs, rooms, NO_QUOTA, protecting, T0)).as("the other makes the room")
        .isEmpty();
    old.getSpec().elastic.reclaimable = false;
    assertThat(Reclaim.forJob(old, jobs, rooms, NO_QUOTA, protecting, T0)).isEmpty();
    assertThat(Reclaim.heldBackFor(waiting, jobs, rooms, NO_QUOTA, protecting, T0)).as("only the kept one could")
        .isEqualTo(Map.of("team-a/recent", T0.plusSeconds(540)));
    assertThat(Reclaim.heldBackFor(waiting, jobs, rooms, NO_QUOTA, plain, T0)).isEmpty();

    Instant over = T0.plusSeconds(540);
    assertThat(Reclaim.protectedUntil(recent, protecting, over)).isEmpty();
    assertThat(Reclaim.forJob(recent, jobs, rooms, NO_QUOTA, protecting, over))
        .contains(new Reclaim.Yield("team-a/recent", 2, "team-a/waiting", 1));

    recent.getStatus().worldRunningTime = null;
    assertThat(Reclaim.protectedUntil(recent, protecting, T0)).as("a world that has not run yet: from its commit")
        .contains(T0.plusSeconds(510));
  }
}
