package dev.ballast.operator.status;

import dev.ballast.operator.api.BalancerSpec;
import dev.ballast.operator.api.BalancerStatusSchema;
import dev.ballast.operator.api.TrainingJobSpec;

/**
 * What the balancer's part of the status (status.balancer, written by the balancer) says about world
 * {@code generation}: unknown until the balancer has described that world (its planVersion names it), then
 * able to plan it or not, with the balancer's reason. Pure.
 */
public record BalancerHealth(State state, String message) {
  public enum State { NOT_WANTED, UNKNOWN, PLANNING, CONFIG_ERROR }

  /** The reason of Balancing=False and Ready=False when the balancer cannot plan the world. */
  public static final String CONFIG_ERROR_REASON = "BalancerConfigError";

  public static BalancerHealth of(TrainingJobSpec spec, long generation, BalancerStatusSchema balancer) {
    if (spec.balancer.mode == BalancerSpec.Mode.OFF) return new BalancerHealth(State.NOT_WANTED, "");
    if (balancer == null || balancer.planVersion == null || !balancer.planVersion.startsWith(generation + ".")) {
      return new BalancerHealth(State.UNKNOWN, "");
    }
    if (balancer.planError != null && !balancer.planError.isEmpty()) {
      return new BalancerHealth(State.CONFIG_ERROR, balancer.planError);
    }
    return new BalancerHealth(State.PLANNING, "the balancer plans world " + generation);
  }
}
