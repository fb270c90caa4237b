package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/**
 * The rates the balancer's cost model prices plans with (spec.balancer.hardware; docs/cost-model.md). The defaults
 * describe an H100 SXM node; a job on other GPUs, or on CPUs, states its own so the balancer weighs compute against
 * traffic (and against the quota rule's host CPU time) as that hardware does.
 */
public class HardwareSpec {
  @Default("450")
  @Min(value = 0, inclusive = false)
  @JsonPropertyDescription("GPU-to-GPU bandwidth within an NVLink domain (a node), GB/s per GPU and direction. Default: NVLink 4.")
  public Double nvlinkGBps = 450.0;

  @Default("50")
  @Min(value = 0, inclusive = false)
  @JsonPropertyDescription("Network bandwidth between nodes of one rack, GB/s per GPU and direction. Default: one 400 Gb/s NIC per GPU.")
  public Double nicGBps = 50.0;

  @Default("25")
  @Min(value = 0, inclusive = false)
  @JsonPropertyDescription("Network bandwidth between racks, GB/s per GPU and direction. Default: a 2:1 oversubscribed spine.")
  public Double crossRackGBps = 25.0;

  @Default("989")
  @Min(value = 0, inclusive = false)
  @JsonPropertyDescription("Dense peak compute of one GPU in the parameters' precision, TFLOP/s. Default: H100 SXM bf16.")
  public Double peakTflops = 989.0;

  @Default("0.6")
  @Min(value = 0, inclusive = false)
  @Max(1)
  @JsonPropertyDescription("Fraction of the peak the expert GEMMs sustain, in (0, 1].")
  public Double gemmEfficiency = 0.6;
}
