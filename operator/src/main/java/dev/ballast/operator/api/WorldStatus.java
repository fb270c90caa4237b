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

  @JsonPropertyDescription("Workers in node-rank order.")
  public List<WorldNode> nodes = new ArrayList<>();

  public WorldStatus() {}

  public WorldStatus(long generation, int gpus, List<WorldNode> nodes) {
    this.generation = generation;
    this.gpus = gpus;
    this.nodes = new ArrayList<>(nodes);
  }
}
