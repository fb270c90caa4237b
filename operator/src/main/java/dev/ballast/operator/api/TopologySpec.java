package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;

/** Node label keys that place a node in the GPU network: NVLink domain, then rack. */
public class TopologySpec {
  public static final String DEFAULT_DOMAIN_LABEL = "nvidia.com/gpu.clique";
  public static final String DEFAULT_RACK_LABEL = "topology.kubernetes.io/rack";

  @Default(DEFAULT_DOMAIN_LABEL)
  @JsonPropertyDescription("Node label whose value names the node's NVLink domain.")
  public String domainLabel = DEFAULT_DOMAIN_LABEL;

  @Default(DEFAULT_RACK_LABEL)
  @JsonPropertyDescription("Node label whose value names the node's rack.")
  public String rackLabel = DEFAULT_RACK_LABEL;
}
