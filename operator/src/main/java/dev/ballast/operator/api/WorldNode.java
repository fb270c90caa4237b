package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** One worker of a world: stable pod index, its rank in this world, and where it runs. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class WorldNode {
  @JsonPropertyDescription("Pod index within the world (in the pod name <job>-g<generation>-w<index>).")
  public Integer index;

  @JsonPropertyDescription("Pod name.")
  public String pod;

  @JsonPropertyDescription("Kubernetes node the pod runs on.")
  public String node;

  @JsonPropertyDescription("Rank of the pod in this world (topology order); GPU rank = nodeRank × gpusPerWorker + local rank.")
  public Integer nodeRank;

  @JsonPropertyDescription("NVLink domain of the node.")
  public String domain;

  @JsonPropertyDescription("Rack of the node.")
  public String rack;

  public WorldNode() {}

  public WorldNode(int index, String pod, String node, int nodeRank, String domain, String rack) {
    this.index = index;
    this.pod = pod;
    this.node = node;
    this.nodeRank = nodeRank;
    this.domain = domain;
    this.rack = rack;
  }
}
