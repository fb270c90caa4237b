package dev.ballast.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.ParallelismSpec;
import dev.ballast.operator.api.TrainingJobSpec;
import dev.ballast.operator.observe.ClusterCapacity;
import dev.ballast.operator.placement.GpuNode;
import dev.ballast.operator.placement.Resources;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
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
        .contains(new Reclaim.Yield("team-a/lender", 4, "team-a/waiting", 1));
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
        .contains(new Reclaim.Yield("team-a/old", 1, "team-b/older", 3));
    assertThat(Reclaim.choose(List.of(younger), List.of(oldLender, newLender)))
        .contains(new Reclaim.Yield("team-a/new", 1, "team-a/younger", 1));
  }

  @Test
  void nobodyGivesBackForAJobThatFitsAlreadyOrThatNoSingleLenderCanMakeRoomFor() {
    List<String> owners = java.util.Arrays.asList("a", "a", "b", "b", "c", null);
    List<Reclaim.Lender> lenders = List.of(new Reclaim.Lender("team-a/a", 0, T0, spec("a", 1, 2), 2, room(owners, "a")),
        new Reclaim.Lender("team-a/b", 0, T0.plusSeconds(1), spec("b", 1, 2), 2, room(owners, "b")));
    assertThat(Reclaim.choose(List.of(new Reclaim.Waiting("team-a/fits", 0, T0, spec("fits", 1, 1), room(owners, null))),
        lenders)).as("n5 is free").isEmpty();
    assertThat(Reclaim.choose(List.of(new Reclaim.Waiting("team-a/big", 0, T0, spec("big", 3, 3), room(owners, null))),
        lenders)).as("n5 and one lender's node make two; the waiting job needs three").isEmpty();
    assertThat(Reclaim.choose(List.of(new Reclaim.Waiting("team-a/two", 0, T0, spec("two", 2, 2), room(owners, null))),
        lenders)).as("n5 and the newer lender's node").contains(new Reclaim.Yield("team-a/b", 1, "team-a/two", 2));
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
        .contains(new Reclaim.Yield("team-a/low", 2, "team-a/low-waiting", 1));
    assertThat(Reclaim.choose(List.of(lowWaiting, highWaiting), List.of(highLender, lowLender)))
        .as("the higher priority first, though younger; from the lower-priority lender, though older")
        .contains(new Reclaim.Yield("team-a/low", 1, "team-a/high-waiting", 2));
  }

  @Test
  void aHigherPriorityJobPreemptsTheLowestPriorityNewestJobWhoseWorldMakesTheRoomWhenNoReclaimCan() {
    List<String> owners = List.of("old", "old", "new", "new", "mid", "mid");
    var old = new Reclaim.Lender("team-a/old", 10, T0, spec("old", 2, 2), 2, room(owners, "old"));
    var newer = new Reclaim.Lender("team-a/new", 10, T0.plusSeconds(9), spec("new", 2, 2), 2, room(owners, "new"));
    var mid = new Reclaim.Lender("team-a/mid", 500, T0, spec("mid", 1, 2), 2, room(owners, "mid"));
    var high = new Reclaim.Waiting("team-a/high", 1000, T0, spec("high", 2, 2), room(owners, null));

    assertThat(Reclaim.choose(List.of(high), List.of(old, newer)))
        .as("the newer of two at their minimum stops whole").contains(new Reclaim.Yield("team-a/new", 0, "team-a/high", 2));
    assertThat(Reclaim.choose(List.of(high), List.of(old, newer)).get().preempts()).isTrue();
    assertThat(Reclaim.choose(List.of(high), List.of(mid, old)))
        .as("the lowest priority is preempted, though it is not the newest")
        .contains(new Reclaim.Yield("team-a/old", 0, "team-a/high", 2));

    var oneNode = new Reclaim.Waiting("team-a/one", 1000, T0, spec("one", 1, 1), room(owners, null));
    assertThat(Reclaim.choose(List.of(oneNode), List.of(old, mid)))
        .as("giving back one worker above the minimum comes before stopping a lower-priority world")
        .contains(new Reclaim.Yield("team-a/mid", 1, "team-a/one", 1));
    var notReclaimable = new Reclaim.Lender("team-a/mid", 500, T0, spec("mid", 1, 2), 2, room(owners, "mid"), false);
    assertThat(Reclaim.choose(List.of(oneNode), List.of(old, notReclaimable)))
        .contains(new Reclaim.Yield("team-a/old", 0, "team-a/one", 1));

    var equal = new Reclaim.Waiting("team-a/equal", 10, T0, spec("equal", 2, 2), room(owners, null));
    assertThat(Reclaim.choose(List.of(equal), List.of(old, newer))).as("only a lower priority is preempted").isEmpty();
    var never = new Reclaim.Waiting("team-a/never", 1000, T0, spec("never", 2, 2), room(owners, null), false);
    assertThat(Reclaim.choose(List.of(never), List.of(old, newer))).as("preemptionPolicy: Never").isEmpty();
    var big = new Reclaim.Waiting("team-a/big", 1000, T0, spec("big", 3, 3), room(owners, null));
    assertThat(Reclaim.choose(List.of(big), List.of(old, newer, mid)))
        .as("no single world frees three nodes").isEmpty();
  }
}
