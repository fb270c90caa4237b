package dev.ballast.operator.desired;

import dev.ballast.contracts.env.ProcessEnv;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.config.NetworkPolicySettings;
import dev.ballast.operator.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRuleBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeerBuilder;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPortBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Who may reach a job's balancer (ingress only; the balancer's own calls to the API server are not restricted):
 * the job's own pods (the sidecars' gRPC stream; its HTTP API), the operator's pods, and pods of namespaces
 * labelled for monitoring (its HTTP API); its health port (health, and the balancer's metrics) is open to all. Everything else, including other jobs' pods in the same namespace, is
 * refused by a network plugin that enforces NetworkPolicy. Jobs live in any namespace, so the operator creates one
 * per job, owned by it; the chart cannot.
 */
public final class BalancerNetworkPolicy {
  /** The namespace label the API server sets on every namespace (Kubernetes 1.22+). */
  static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";
  /** What the chart labels the operator's pods with. */
  static final Map<String, String> OPERATOR_POD_LABELS =
      Map.of("app.kubernetes.io/part-of", "ballast", "app.kubernetes.io/component", "operator");

  private BalancerNetworkPolicy() {}

  public static NetworkPolicy build(TrainingJob job, OperatorSettings settings) {
    String name = job.getMetadata().getName();
    NetworkPolicySettings policy = settings.networkPolicies();
    List<NetworkPolicyIngressRule> rules = new ArrayList<>();
    rules.add(rule(List.of(new NetworkPolicyPeerBuilder().withPodSelector(selector(Labels.forJob(name))).build()),
        settings.balancerGrpcPort(), settings.balancerHttpPort()));
    policy.operatorNamespace().ifPresent(ns -> rules.add(rule(List.of(new NetworkPolicyPeerBuilder()
            .withNamespaceSelector(selector(Map.of(NAMESPACE_NAME_LABEL, ns)))
            .withPodSelector(selector(OPERATOR_POD_LABELS)).build()),
        settings.balancerHttpPort())));
    rules.add(rule(List.of(new NetworkPolicyPeerBuilder()
            .withNamespaceSelector(selector(Map.of(policy.monitoringNamespaceLabel(), "true"))).build()),
        settings.balancerHttpPort()));
    // open: the kubelet probes health there, and Prometheus scrapes the balancer's metrics (aggregates, no job data)
    rules.add(rule(List.of(), ProcessEnv.HEALTH_PORT));
    return TemplateHash.stamp(new NetworkPolicyBuilder()
        .withMetadata(Owners.childMeta(job, Names.balancer(name), Labels.forRole(name, Labels.ROLE_BALANCER)))
        .withNewSpec()
        .withPodSelector(selector(Labels.forRole(name, Labels.ROLE_BALANCER)))
        .withPolicyTypes("Ingress")
        .withIngress(rules)
        .endSpec()
        .build());
  }

  private static NetworkPolicyIngressRule rule(List<NetworkPolicyPeer> from, int... ports) {
    List<NetworkPolicyPort> allowed = new ArrayList<>();
    for (int port : ports) {
      allowed.add(new NetworkPolicyPortBuilder().withProtocol("TCP").withPort(new IntOrString(port)).build());
    }
    return new NetworkPolicyIngressRuleBuilder().withFrom(from).withPorts(allowed).build();
  }

  private static LabelSelector selector(Map<String, String> labels) {
    return new LabelSelectorBuilder().withMatchLabels(labels).build();
  }
}
