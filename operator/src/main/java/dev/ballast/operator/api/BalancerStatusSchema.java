package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * The CRD schema of status.balancer. Written by the job's balancer (its own field manager); the operator never
 * touches it. The fields are the contract's (dev.ballast.contracts.status.BalancerStatus), checked by a test.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BalancerStatusSchema {
  @JsonPropertyDescription("Newest adopted plan as <worldGeneration>.<sequence>.")
  public String planVersion;

  @JsonPropertyDescription("Highest plan sequence ever issued; a restarted balancer continues after it.")
  public Long planSequence;

  @JsonPropertyDescription("Optimizer step at which every rank adopted planVersion.")
  public Long adoptedAtStep;

  @JsonPropertyDescription("Predicted busiest-GPU/mean tokens under the static layout, on the loads the newest plan was made for (measured.imbalanceBefore is the measurement).")
  public Double imbalanceBefore;

  @JsonPropertyDescription("Predicted busiest-GPU/mean tokens under the newest plan, on the loads it was made for (measured.imbalanceAfter is the measurement).")
  public Double imbalanceAfter;

  @JsonPropertyDescription("World generation of lastStep.")
  public Long lastStepGeneration;

  @JsonPropertyDescription("Newest optimizer step every rank reported (the progress heartbeat).")
  public Long lastStep;

  @JsonPropertyDescription("When lastStep was first seen (RFC 3339).")
  public String lastStepTime;

  @JsonPropertyDescription("Predicted step-time speedup of the newest plan over the static layout (measured.stepTimeSpeedup is the measurement).")
  public Double predictedSpeedup;

  @JsonPropertyDescription("Why the balancer cannot plan the current world (a configuration error); absent when it can.")
  public String planError;

  @JsonPropertyDescription("World generation of firstPlanSource and firstPlanSteps.")
  public Long firstPlanGeneration;

  @JsonPropertyDescription("Where that world's first plan came from: history (the load history, before its first step) or steps (its own steps).")
  public String firstPlanSource;

  @JsonPropertyDescription("Steps that world ran before every rank adopted its first plan (0: from its first step).")
  public Long firstPlanSteps;

  @JsonPropertyDescription("What the ranks' reports of the current world's recent complete steps measured, beside the prediction above; absent until a step was measured, each field absent until it was.")
  public BalancerMeasuredSchema measured;

  @JsonPropertyDescription("GPU ranks of the current world that run persistently slower than their peers or stopped reporting, with their pods; absent when none (the operator's Stragglers condition).")
  public java.util.List<BalancerStragglerSchema> stragglers;
}
