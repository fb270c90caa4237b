package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * Why the current world is being replaced, recorded before any of its pods is stopped so that an
 * operator restart continues the same transition instead of starting (or counting) another.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class WorldTransition {
  @JsonPropertyDescription("Why: WorkerFailed, WorkerLost, NodeLost, NoProgress (restarts) or CapacityAvailable,"
      + " WorkersChanged, SpecChanged, NodeDrained, Reclaimed (voluntary resizes), Preempted (the world stops for a waiting job"
      + " of higher priority; no restart counted), Suspended.")
  public String reason;

  @JsonPropertyDescription("What happened, for a person.")
  public String message;

  @JsonPropertyDescription("The world generation being stopped; the next world is generation + 1.")
  public Long fromGeneration;

  @JsonPropertyDescription("True for a voluntary change: trainers get checkpointTimeoutSeconds to checkpoint and exit.")
  public Boolean voluntary;

  @JsonPropertyDescription("Worker count the change aims at, where it aims at one.")
  public Integer workers;

  @JsonPropertyDescription("Reclaimed and Preempted only: the job (namespace/name) waiting for room that the workers are"
      + " given to; it is admitted after this job's next world (Reclaimed) or once this job's workers have stopped"
      + " (Preempted).")
  public String forJob;

  @JsonPropertyDescription("When the transition began (RFC 3339).")
  public String since;

  @JsonPropertyDescription("The next world is not admitted before this time (restart backoff, RFC 3339).")
  public String notBefore;

  public WorldTransition() {}

  public WorldTransition(String reason, String message, long fromGeneration, boolean voluntary, Integer workers,
      String since, String notBefore) {
    this.reason = reason;
    this.message = message;
    this.fromGeneration = fromGeneration;
    this.voluntary = voluntary;
    this.workers = workers;
    this.since = since;
    this.notBefore = notBefore;
  }
}
