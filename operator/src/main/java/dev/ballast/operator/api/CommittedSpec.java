package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * The spec fields that shape the balancer's plans, copied when a world is committed: the balancer reads them from
 * the world document (rendered from status.world), so an edit of spec.parallelism or spec.balancer takes effect with
 * the next world. The field names are the contract's (dev.ballast.contracts.world.PlanningSpec, docs/contracts.md).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CommittedSpec {
  @JsonPropertyDescription("spec.parallelism when the world was committed.")
  public ParallelismSpec parallelism;

  @JsonPropertyDescription("spec.model when the world was committed.")
  public ModelShape model;

  @JsonPropertyDescription("spec.balancer when the world was committed.")
  public BalancerSpec balancer;

  public CommittedSpec() {}

  /** A deep copy of the plan-shaping parts of {@code spec}. */
  public static CommittedSpec of(TrainingJobSpec spec) {
    CommittedSpec c = new CommittedSpec();
    c.parallelism = Serialization.clone(spec.parallelism);
    c.model = Serialization.clone(spec.model);
    c.balancer = Serialization.clone(spec.balancer);
    return c;
  }
}
