package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** Node label keys that place a node in the GPU network: NVLink domain, then rack. */
public class TopologySpec {
  public static final String DEFAULT_DOMAIN_LABEL = "nvidia.com/gpu.clique";
  public static final String DEFAULT_RACK_LABEL = "topology.kubernetes.io/rack";

  /**
   * A Kubernetes label key: an optional DNS-subdomain prefix (at most 253 characters) and '/', then a
   * name of at most 63 characters. CEL, because the pattern's own message would not say what a key is.
   */
  static final String LABEL_KEY = "self.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
      + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$') && (!self.contains('/') || self.indexOf('/') <= 253)";
  static final String LABEL_KEY_RULE = " must be a node label key: an optional DNS subdomain prefix and '/', then a"
      + " name of at most 63 letters, digits, '-', '_' or '.' that starts and ends with a letter or digit";
  static final int LABEL_KEY_MAX_LENGTH = 253 + 1 + 63;

  @Default(DEFAULT_DOMAIN_LABEL)
  @Size(max = LABEL_KEY_MAX_LENGTH)
  @ValidationRule(value = LABEL_KEY, message = "topology.domainLabel" + LABEL_KEY_RULE + " (e.g. nvidia.com/gpu.clique)")
  @JsonPropertyDescription("Node label whose value names the node's NVLink domain.")
  public String domainLabel = DEFAULT_DOMAIN_LABEL;

  @Default(DEFAULT_RACK_LABEL)
  @Size(max = LABEL_KEY_MAX_LENGTH)
  @ValidationRule(value = LABEL_KEY, message = "topology.rackLabel" + LABEL_KEY_RULE + " (e.g. topology.kubernetes.io/rack)")
  @JsonPropertyDescription("Node label whose value names the node's rack.")
  public String rackLabel = DEFAULT_RACK_LABEL;
}
