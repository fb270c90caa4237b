package dev.ballast.operator.admission;

import static dev.ballast.operator.admission.ReclaimTest.job;
import static dev.ballast.operator.admission.ReclaimTest.room;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.api.WorldTransition;
import dev.ballast.operator.observe.Priorities;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The order waiting jobs take room in (docs/elastic.md, "Admission order"), and admission beside the jobs ahead. */
class AdmissionQueueTest {
  static final Priorities CLASSES = new Priorities(Map.of("high", 1000, "low", 10), null, Set.of());
  static final Instant NOW = Instant.parse("2026-12-06T12:00:00Z");

  static TrainingJob created(TrainingJob job, String at) {
    job.getMetadata().setCreationTimestamp(at);
    return job;
  }

  /** Nodes n0..n5, the first {@code busy} of them taken by a running job. */
  static List<String> owners(int busy) {
    String[] owners = new String[6];
    Arrays.fill(owners, 0, busy, "busy");
    return Arrays.asList(owners);
  }

  @Test
  void waitingJobsAreAheadByPriorityThenAgeAndOnlyAJobWithoutARunningWorldQueues() {
    var low = created(job("low", 1, 0, "low"), "2026-12-06T10:00:00Z");
    var highOld = created(job("high-old", 1, 0, "high"), "2026-12-06T11:00:00Z");
    var highNew = created(job("high-new", 1, 0, "high"), "2026-12-06T11:30:00Z");
    var running = created(job("running", 1, 2, "high"), "2026-12-06T09:00:00Z");
    var fresh = created(job("fresh", 1, 0, null), "2026-12-06T12:00:00Z");
    fresh.setStatus(null); // never reconciled: it queues too
    List<TrainingJob> jobs = List.of(low, highOld, highNew, running, fresh);

    assertThat(AdmissionQueue.ahead(fresh, jobs, CLASSES, NOW)).extracting(AdmissionQueue.Ahead::job)
        .as("a running job is not waiting; priority first, then age")
        .containsExactly("team-a/high-old", "team-a/high-new", "team-a/low");
    assertThat(AdmissionQueue.ahead(highNew, jobs, CLASSES, NOW)).extracting(AdmissionQueue.Ahead::job)
        .containsExactly("team-a/high-old");
    assertThat(AdmissionQueue.ahead(highOld, jobs, CLASSES, NOW)).isEmpty();

    highOld.getStatus().transition = new WorldTransition("WorkerFailed", "", 1, false, null, "2026-12-06T11:59:00Z",
        "2026-12-06T12:00:10Z");
    assertThat(AdmissionQueue.ahead(fresh, jobs, CLASSES, NOW)).extracting(AdmissionQueue.Ahead::job)
        .as("a job in its restart backoff cannot take room yet").containsExactly("team-a/high-new", "team-a/low");
    assertThat(AdmissionQueue.ahead(fresh, jobs, CLASSES, NOW.plusSeconds(10))).extracting(AdmissionQueue.Ahead::job)
        .containsExactly("team-a/high-old", "team-a/high-new", "team-a/low");

    var quota = created(job("quota", 1, 0, "high"), "2026-12-06T11:40:00Z");
    quota.getStatus().conditions.get(0).setReason(NamespaceQuota.EXCEEDS_QUOTA);
    var tooSmall = created(job("too-small", 1, 0, "high"), "2026-12-06T11:45:00Z");
    tooSmall.getStatus().conditions.get(0).setReason(NamespaceQuota.QUOTA_TOO_SMALL);
    assertThat(AdmissionQueue.ahead(fresh, List.of(low, quota, tooSmall, fresh), CLASSES, NOW.plusSeconds(10)))
        .extracting(AdmissionQueue.Ahead::job).as("a job waiting for its quota queues; one its quota could never"
            + " take does not").containsExactly("team-a/quota", "team-a/low");

    var restarting = job("restarting", 1, 2, null);
    restarting.getStatus().phase = TrainingJobStatus.Phase.Restarting;
    restarting.getStatus().transition = new WorldTransition("WorkerFailed", "", 1, false, null,
        "2026-12-06T12:00:00Z", null);
    assertThat(AdmissionQueue.ahead(restarting, jobs, CLASSES, NOW)).as("its next world keeps its place").isEmpty();
  }

  @Test
  void aJobIsAdmittedOnlyBesideTheWorldsOfTheJobsAheadThatFitAndBackfillsRoomTheyCannotUse() {
    var capacity = room(owners(2), null); // four free nodes
    var ahead = new AdmissionQueue.Ahead("team-a/first", 1000, job("first", 2, 0, "high").getSpec(), Set.of());
    ahead.spec().workers.max = 2;
    var elastic = job("elastic", 1, 0, null).getSpec(); // 1..4

    assertThat(GangAdmission.choose(elastic, 4, capacity, 1, Set.of(), List.of(ahead)))
        .as("beside the first job's two workers")
        .isInstanceOfSatisfying(GangAdmission.Result.Admitted.class, a -> assertThat(a.world().size()).isEqualTo(2));

    var three = job("three", 3, 0, null).getSpec(); // 3..4
    assertThat(GangAdmission.choose(three, 4, capacity, 1, Set.of(), List.of(ahead)))
        .isInstanceOfSatisfying(GangAdmission.Result.Unschedulable.class, u -> {
          assertThat(u.reason()).isEqualTo("QueuedBehind");
          assertThat(u.message()).isEqualTo("team-a/first (priority 1000, 2 workers) waits ahead of this job (a higher"
              + " priority, or as high and older) and takes the room first; beside it: needs 3 workers × 8 GPUs"
              + " (workers.min 3, workers.max 4) but only 2 fit: 2 of 6 GPU nodes can host a worker; excluded: 4 nodes"
              + " lack 8 free GPUs (0 GPUs free on them in all)");
        });

    var big = new AdmissionQueue.Ahead("team-a/big", 1000, job("big", 5, 0, "high").getSpec(), Set.of());
    assertThat(GangAdmission.choose(three, 4, capacity, 1, Set.of(), List.of(big)))
        .as("a job ahead that does not fit holds no one back")
        .isInstanceOfSatisfying(GangAdmission.Result.Admitted.class, a -> assertThat(a.world().size()).isEqualTo(4));
    assertThat(GangAdmission.choose(three, 4, room(owners(4), null), 1, Set.of(), List.of(ahead)))
        .as("where the job itself does not fit, the room is short, whoever waits")
        .isInstanceOfSatisfying(GangAdmission.Result.Unschedulable.class,
            u -> assertThat(u.reason()).isEqualTo("InsufficientGPUs"));
  }

  @Test
  void aJobAheadTakesNoMoreThanItsNamespacesQuotaLetsIn() {
    var capacity = room(owners(2), null); // four free nodes
    var spec = job("first", 1, 0, "high").getSpec(); // 1..4
    var three = job("three", 3, 0, null).getSpec(); // 3..4
    var unlimited = new AdmissionQueue.Ahead("team-a/first", 1000, spec, Set.of());
    assertThat(GangAdmission.choose(three, 4, capacity, 1, Set.of(), List.of(unlimited)))
        .as("the first job would take all four").isInstanceOf(GangAdmission.Result.Unschedulable.class);
    var quota1 = new AdmissionQueue.Ahead("team-a/first", 1000, spec, Set.of(), null, 1);
    assertThat(GangAdmission.choose(three, 4, capacity, 1, Set.of(), List.of(quota1)))
        .as("its quota lets in one: three are left").isInstanceOfSatisfying(GangAdmission.Result.Admitted.class,
            a -> assertThat(a.world().size()).isEqualTo(3));
    var none = new AdmissionQueue.Ahead("team-a/first", 1000, spec, Set.of(), null, 0);
    assertThat(AdmissionQueue.after(capacity, List.of(none), AdmissionQueue.QuotaBeside.EACH_ALONE).taking())
        .as("a quota that lets none in").isEmpty();

    // two jobs ahead sharing one quota of 3 workers: the second gets what the first leaves of it
    var second = new AdmissionQueue.Ahead("team-a/second", 1000, spec, Set.of(), null, 3);
    AdmissionQueue.QuotaBeside shared = (ahead, before) -> ahead.quotaWorkers()
        - before.stream().mapToInt(AdmissionQueue.Taking::workers).sum();
    var quota3 = new AdmissionQueue.Ahead("team-a/first", 1000, spec, Set.of(), null, 3);
    assertThat(AdmissionQueue.after(capacity, List.of(quota3, second), shared).taking())
        .extracting(t -> t.job().job(), AdmissionQueue.Taking::workers)
        .as("the first takes all three, none is left for the second")
        .containsExactly(org.assertj.core.groups.Tuple.tuple("team-a/first", 3));
    assertThat(AdmissionQueue.after(capacity, List.of(quota3, second), AdmissionQueue.QuotaBeside.EACH_ALONE)
        .taking())
        .extracting(AdmissionQueue.Taking::workers).as("each within its quota alone: the second takes the fourth node")
        .containsExactly(3, 1);
    assertThat(GangAdmission.choose(three, 4, capacity, 1, Set.of(), List.of(quota1), shared, taking -> 3
        - taking.stream().mapToInt(AdmissionQueue.Taking::workers).sum())).as("room for three beside the first, but"
            + " the quota they share lets in two").isEqualTo(new GangAdmission.Result.Unschedulable(
                InsufficientRoom.QUEUED_BEHIND, "team-a/first (priority 1000, 1 worker) waits ahead of this job (a"
                    + " higher priority, or as high and older) and takes the quota first; beside it: its namespace's"
                    + " quota lets in 2 workers of this job, fewer than its workers.min (3)"));

    var fresh = created(job("fresh", 1, 0, null), "2026-12-06T12:00:00Z");
    var waiting = created(job("waiting", 1, 0, "high"), "2026-12-06T11:00:00Z");
    assertThat(AdmissionQueue.ahead(fresh, List.of(waiting, fresh), CLASSES, NOW, j -> 2))
        .extracting(AdmissionQueue.Ahead::quotaWorkers).containsExactly(2);
  }

  @Test
  void aJobThatHasWaitedLongerThanItsReserveAfterSecondsKeepsTheJobsBehindItFromTakingRoomItCannotUseYet() {
    var big = created(job("big", 3, 0, null), "2026-12-06T11:00:00Z"); // 3..4, waiting for an hour
    var small = created(job("small", 1, 0, null), "2026-12-06T11:59:00Z");
    small.setStatus(null);
    var capacity = room(owners(4), null); // two free nodes
    List<TrainingJob> jobs = List.of(big, small);

    big.getSpec().elastic.reserveAfterSeconds = 7200;
    assertThat(GangAdmission.choose(small.getSpec(), 4, capacity, 1, Set.of(),
        AdmissionQueue.ahead(small, jobs, CLASSES, NOW))).as("within two hours it does not reserve: backfill")
        .isInstanceOf(GangAdmission.Result.Admitted.class);

    big.getSpec().elastic.reserveAfterSeconds = 3600;
    assertThat(AdmissionQueue.ahead(small, jobs, CLASSES, NOW)).singleElement()
        .satisfies(a -> assertThat(a.reservingSince()).isEqualTo(Instant.parse("2026-12-06T11:00:00Z")));
    assertThat(GangAdmission.choose(small.getSpec(), 4, capacity, 1, Set.of(),
        AdmissionQueue.ahead(small, jobs, CLASSES, NOW)))
        .isInstanceOfSatisfying(GangAdmission.Result.Unschedulable.class, u -> {
          assertThat(u.reason()).isEqualTo("QueuedBehind");
          assertThat(u.message()).isEqualTo("team-a/big (priority 0) waits ahead of this job since"
              + " 2026-12-06T11:00:00Z, longer than its spec.elastic.reserveAfterSeconds (3600): it reserves the room"
              + " for its workers.min (3), and this job waits until it runs");
        });

    big.getSpec().workers.min = 7;
    big.getSpec().workers.max = 7;
    assertThat(GangAdmission.choose(small.getSpec(), 4, capacity, 1, Set.of(),
        AdmissionQueue.ahead(small, jobs, CLASSES, NOW)))
        .as("a job that could not fit even the empty cluster (six nodes) reserves nothing")
        .isInstanceOf(GangAdmission.Result.Admitted.class);
  }
}
