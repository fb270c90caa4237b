package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * The CRD schema of status.balancer.measured: what the balancer measured from the ranks' reports. The fields are the
 * contract's (dev.ballast.contracts.status.BalancerStatus.Measured), checked by a test.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BalancerMeasuredSchema {
  @JsonPropertyDescription("Busiest-GPU/mean tokens of recent complete steps' reported counts placed by the static layout.")
  public Double imbalanceBefore;

  @JsonPropertyDescription("Busiest-GPU/mean tokens of recent complete steps' reported counts placed by the plan every rank ran; absent while the static layout runs.")
  public Double imbalanceAfter;

  @JsonPropertyDescription("Slowest rank's step time in seconds, mean over recent steps that ran the static layout (before the world's first plan was adopted); absent when none reported timing.")
  public Double stepSecondsBefore;

  @JsonPropertyDescription("Slowest rank's step time in seconds, mean over recent steps that ran the balancer's plans (from the step every rank adopted the world's first).")
  public Double stepSecondsAfter;

  @JsonPropertyDescription("stepSecondsBefore / stepSecondsAfter: the measured step-time speedup of the balancer's plans over the static layout.")
  public Double stepTimeSpeedup;

  @JsonPropertyDescription("Slowest rank's compute time (outside communication) in seconds, mean over the same steps as stepSecondsBefore.")
  public Double computeSecondsBefore;

  @JsonPropertyDescription("Slowest rank's compute time (outside communication) in seconds, mean over the same steps as stepSecondsAfter.")
  public Double computeSecondsAfter;
}
