package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/** Settings of the per-job expert balancer. */
public class BalancerSpec {

  /** How experts are spread: replicas of hot experts, fully sharded experts gathered per step, or no balancing. */
  public enum Mode {
    @JsonProperty("replicate") REPLICATE,
    @JsonProperty("fssdp") FSSDP,
    @JsonProperty("off") OFF
  }

  /** Which placement algorithm the balancer runs. */
  public enum Planner {
    @JsonProperty("ballast") BALLAST("ballast"),
    @JsonProperty("ballast-routed") BALLAST_ROUTED("ballast-routed"),
    @JsonProperty("eplb") EPLB("eplb"),
    @JsonProperty("static") STATIC("static");

    private final String wireName;

    Planner(String wireName) {
      this.wireName = wireName;
    }

    /** The planner's name as the balancer looks it up (docs/planner.md). */
    public String wireName() {
      return wireName;
    }
  }

  @Default("replicate")
  @JsonPropertyDescription("replicate: hot experts get replicas in spare slots; fssdp: experts are sharded and gathered where needed each step; off: the static layout, no balancer.")
  public Mode mode = Mode.REPLICATE;

  @Default("ballast")
  @JsonPropertyDescription("Placement algorithm: ballast (topology-aware, incremental), ballast-routed (ballast from scratch plus a searched placement and the routing it was searched with, for small all-to-all-bound MoE layers; plans take seconds), eplb (DeepSeek EPLB) or static.")
  public Planner planner = Planner.BALLAST;

  @Default("2")
  @Min(0)
  @Max(64)
  @JsonPropertyDescription("Extra expert slots per GPU for replicas (replicate mode).")
  public Integer redundantSlotsPerGpu = 2;

  @Default("50")
  @Min(1)
  @JsonPropertyDescription("Optimizer steps between re-plans.")
  public Integer replanEverySteps = 50;

  @Min(0)
  @JsonPropertyDescription("Peak bytes per GPU for expert weights, gradients and optimizer state over its MoE layers; caps the replicas per GPU below redundantSlotsPerGpu where tighter. Unset: no cap.")
  public Long memoryBudgetBytes;

  @Default("{}")
  @JsonPropertyDescription("The hardware the job runs on, as the balancer's cost model prices it (link rates and compute); defaults: an H100 SXM node.")
  public HardwareSpec hardware = new HardwareSpec();
}
