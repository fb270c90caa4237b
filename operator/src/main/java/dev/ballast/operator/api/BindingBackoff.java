package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** Gangs the scheduler did not bind in time, so that admission does not repeat a placement that keeps failing. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BindingBackoff {
  @JsonPropertyDescription("The nodes of the last gang that timed out, sorted and comma-separated.")
  public String nodes;

  @JsonPropertyDescription("How many binding timeouts in a row placed the gang on these nodes.")
  public Integer timeouts;

  @JsonPropertyDescription("No admission before this time (RFC 3339), set from the second identical timeout on.")
  public String notBefore;

  public BindingBackoff() {}

  public BindingBackoff(String nodes, int timeouts, String notBefore) {
    this.nodes = nodes;
    this.timeouts = timeouts;
    this.notBefore = notBefore;
  }
}
