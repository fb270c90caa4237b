package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;

/** Shape of the Mixture-of-Experts model; the balancer's cost model and plans depend on it. */
public class ModelShape {
  @Required
  @Min(1)
  @Max(1024)
  @JsonPropertyDescription("Number of MoE layers.")
  public Integer moeLayers;

  @Required
  @Min(1)
  @Max(4096)
  @JsonPropertyDescription("Routed experts per MoE layer.")
  public Integer experts;

  @Required
  @Min(1)
  @Max(64)
  @JsonPropertyDescription("Experts each token is routed to (at most experts).")
  public Integer topK;

  @Default("0")
  @Min(0)
  @Max(64)
  @JsonPropertyDescription("Shared (always active) experts per layer; they are not balanced.")
  public Integer sharedExperts = 0;

  @Default("2048")
  @Min(1)
  @JsonPropertyDescription("Model hidden size.")
  public Integer hiddenSize = 2048;

  @Default("1024")
  @Min(1)
  @JsonPropertyDescription("Hidden size of one expert's feed-forward network.")
  public Integer ffnHiddenSize = 1024;

  @Default("2")
  @Min(1)
  @Max(8)
  @JsonPropertyDescription("Bytes per parameter of the expert weights (2 for bf16).")
  public Integer bytesPerParam = 2;

  public ModelShape() {}

  public ModelShape(int moeLayers, int experts, int topK) {
    this.moeLayers = moeLayers;
    this.experts = experts;
    this.topK = topK;
  }
}
