package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.ArrayList;
import java.util.List;

/** The ordered workers of one world generation. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class WorldStatus {
  @JsonPropertyDescription("Increases each time the operator commits a new world whose pods are all bound.")
  public Long generation;

  @JsonPropertyDescription("GPUs in the world: workers × gpusPerWorker.")
  public Integer gpus;

  @JsonPropertyDescription("nvidia.com/gpu per worker pod in this world (spec.gpusPerWorker when it was committed).")
  public Integer gpusPerWorker;

  @JsonPropertyDescription("Workers in node-rank order.")
  public List<WorldNode> nodes = new ArrayList<>();

  @JsonPropertyDescription("The spec fields that shape the balancer's plans, as they were when this world was committed.")
  public CommittedSpec spec;

  public WorldStatus() {}

  public WorldStatus(long generation, int gpusPerWorker, List<WorldNode> nodes, CommittedSpec spec) {
    this.generation = generation;
    this.gpus = nodes.size() * gpusPerWorker;
    this.gpusPerWorker = gpusPerWorker;
    this.nodes = new ArrayList<>(nodes);
    this.spec = spec;
  }
}
