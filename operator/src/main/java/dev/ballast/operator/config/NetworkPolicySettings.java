package dev.ballast.operator.config;

import java.util.Optional;

/**
 * Whether the operator gives each job's balancer a NetworkPolicy (docs/security.md), and who besides the job's own
 * pods may reach it.
 *
 * @param enabled on by default; off when the cluster's network plugin has no NetworkPolicy or the platform team
 *     manages policies itself
 * @param operatorNamespace the operator's namespace (the chart sets it); empty for a local process, whose policy
 *     then has no operator rule
 * @param monitoringNamespaceLabel namespaces carrying this label with value "true" may read the balancer's
 *     dashboard API (their pods still need the job's token)
 */
public record NetworkPolicySettings(boolean enabled, Optional<String> operatorNamespace, String monitoringNamespaceLabel) {
  public static final String DEFAULT_MONITORING_LABEL = "ballast.dev/monitoring";

  public static NetworkPolicySettings defaults() {
    return new NetworkPolicySettings(true, Optional.empty(), DEFAULT_MONITORING_LABEL);
  }
}
