package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

/**
 * Observed state. Two writers with separate server-side-apply field managers: the operator owns
 * everything except {@code balancer}, which only the job's balancer writes.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TrainingJobStatus {

  /** Lifecycle of a job, as shown in {@code kubectl get tj}. */
  public enum Phase { Pending, Admitted, Running, Resizing, Restarting, Suspended, Succeeded, Failed }

  @JsonPropertyDescription("Where the job is in its lifecycle.")
  public Phase phase;

  @JsonPropertyDescription("Why the job is not simply running, in one CamelCase word (the reason of the condition that"
      + " says it, e.g. InsufficientGPUs, PodRefused, Stragglers); absent when nothing is in the way. Shown by kubectl get.")
  public String reason;

  @JsonPropertyDescription("The newest metadata.generation that is in effect: the running world (or the admission under way) reflects it.")
  public Long observedGeneration;

  @JsonPropertyDescription("Workers of the current world (the admitted gang size); 0 until admitted.")
  public Integer desiredWorkers;

  @JsonPropertyDescription("Workers of the current world that are running.")
  public Integer readyWorkers;

  @JsonPropertyDescription("How many times the world was restarted after failures (counted against spec.restartLimit).")
  public Integer restarts;

  @JsonPropertyDescription("When the current world was committed (RFC 3339); growth waits spec.elastic.cooldownSeconds from here.")
  public String worldCommitTime;

  @JsonPropertyDescription("When every worker of the current world first ran (RFC 3339); the progress deadline counts from here.")
  public String worldRunningTime;

  @JsonPropertyDescription("Set while the current world is being replaced: why, and when the next one may start.")
  public WorldTransition transition;

  @JsonPropertyDescription("The highest world generation whose workers were released and which was rolled back before it was"
      + " committed; its number is never admitted again (its workers may have started).")
  public Long retiredGeneration;

  @JsonPropertyDescription("Set after a gang was not bound in time: its nodes and how often that happened.")
  public BindingBackoff bindingBackoff;

  @JsonPropertyDescription("When the first world started running, or the first since the job was last resumed (RFC 3339); spec.activeDeadlineSeconds counts from it.")
  public String startTime;

  @JsonPropertyDescription("When the job succeeded or failed (RFC 3339).")
  public String completionTime;

  @JsonPropertyDescription("The current world: its generation and the workers' ranks and topology coordinates.")
  public WorldStatus world;

  @JsonPropertyDescription("Admitted, Ready, Resizing, Progressing, Succeeded, Failed and Suspended conditions, each with observedGeneration.")
  public List<Condition> conditions = new ArrayList<>();

  @JsonPropertyDescription("Written by the job's balancer only: the adopted plan and its effect.")
  public BalancerStatusSchema balancer;
}
