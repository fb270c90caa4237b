package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;

/** How a world's GPUs are split into expert-parallel groups and pipeline stages. */
public class ParallelismSpec {
  @Required
  @Min(1)
  @Max(4096)
  @JsonPropertyDescription("Expert-parallel group size in GPUs (at most model.experts). GPUs beyond one group are data-parallel copies.")
  public Integer expert;

  @Default("1")
  @Min(1)
  @Max(256)
  @JsonPropertyDescription("Pipeline stages; each stage's MoE layers are balanced over that stage's GPUs.")
  public Integer pipeline = 1;

  public ParallelismSpec() {}

  public ParallelismSpec(int expert, int pipeline) {
    this.expert = expert;
    this.pipeline = pipeline;
  }
}
