package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * The CRD schema of one entry of status.balancer.stragglers. The fields are the contract's
 * (dev.ballast.contracts.status.BalancerStatus.Straggler), checked by a test.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BalancerStragglerSchema {
  @JsonPropertyDescription("The GPU rank (node rank × gpusPerWorker + local GPU).")
  public Long rank;

  @JsonPropertyDescription("The worker pod the rank runs in.")
  public String pod;

  @JsonPropertyDescription("slow: its compute (or step) time stayed at or above 1.3× its peers' median for 3 windows of 8 complete steps; silent: it is missing from the last 3 released steps.")
  public String kind;
}
