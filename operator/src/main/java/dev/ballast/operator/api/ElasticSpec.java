package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/**
 * How a running job changes size: when it grows, whether it gives workers above workers.min back to a job waiting for
 * room, and how long it waits below workers.min. See docs/elastic.md.
 */
public class ElasticSpec {
  @Default("300")
  @Min(0)
  @Max(86400)
  @JsonPropertyDescription("Seconds after a world is committed before the job may grow again (keeps a job from thrashing).")
  public Integer cooldownSeconds = 300;

  @Default("1")
  @Min(1)
  @Max(1024)
  @JsonPropertyDescription("Fewest workers a growth must add to be worth a coordinated restart.")
  public Integer minGainWorkers = 1;

  @Default("120")
  @Min(0)
  @Max(3600)
  @JsonPropertyDescription("Grace period of a voluntary stop (growth, spec change, drain, suspend): the trainer gets SIGTERM,"
      + " saves its checkpoint and exits within this many seconds, or is killed.")
  public Integer checkpointTimeoutSeconds = 120;

  @Min(1)
  @JsonPropertyDescription("Seconds a job may wait without room for workers.min workers (since it lost its world, or since"
      + " creation if it never had one) before it fails with reason BelowMinTimeout. Unset: wait forever.")
  public Integer belowMinTimeoutSeconds;

  @Min(1)
  @JsonPropertyDescription("Seconds a job may wait without room for workers.min workers (counted as for"
      + " belowMinTimeoutSeconds) before it reserves the room it needs: from then on, jobs behind it in the admission"
      + " order (a lower priority, or as high and newer) that could use its nodes are not admitted until it runs, so"
      + " room freed by ending jobs gathers for it (as Volcano's sla-waiting-time). Unset: jobs behind it take room it"
      + " cannot use yet, however long it waits (backfill; docs/elastic.md, Admission order).")
  public Integer reserveAfterSeconds;

  @Default("true")
  @JsonPropertyDescription("Whether workers above workers.min may be reclaimed: when another job waits for room to reach its"
      + " own workers.min and this job alone can make that room by shrinking, it shrinks (a voluntary resize, reason"
      + " Reclaimed), unless that job's priority (its pods' PriorityClass) is lower. Of several jobs that could, the one of"
      + " lowest priority, then the newest, gives back. False: this job keeps its workers above workers.min; a waiting job"
      + " of strictly higher priority may still preempt its whole world (docs/elastic.md, Preemption).")
  public Boolean reclaimable = true;
}
