package dev.ballast.e2e.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.Jobs;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The NetworkPolicy the operator creates per job, as the real API server stores it (validated and defaulted), and
 * checked against the real pods: it selects the job's balancer and no other pod, lets the job's own pods reach the
 * gRPC and HTTP ports, the operator's namespace and monitoring namespaces the HTTP port, anyone the health port,
 * and nothing else. The e2e cluster has no network plugin, so enforcement itself is not tested here.
 */
@E2eTest
class NetworkPolicyTest {
  static final Duration WAIT = Duration.ofMinutes(3);
  final BallastEnvironment env;
  final Jobs jobs;

  NetworkPolicyTest(BallastEnvironment env) {
    this.env = env;
    this.jobs = new Jobs(env, NetworkPolicyTest.class);
  }

  NetworkPolicy policy(String job) {
    return env.admin().network().v1().networkPolicies().inNamespace(jobs.namespace()).withName(job + "-balancer").get();
  }

  static boolean selects(LabelSelector selector, Map<String, String> labels) {
    return selector.getMatchExpressions().isEmpty()
        && selector.getMatchLabels().entrySet().stream().allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
  }

  static List<Integer> ports(NetworkPolicyIngressRule rule) {
    return rule.getPorts().stream().peek(p -> assertThat(p.getProtocol()).isEqualTo("TCP"))
        .map(p -> p.getPort().getIntVal()).toList();
  }

  @Test
  void eachJobsBalancerIsReachableOnlyByItsOwnPodsTheOperatorMonitoringAndProbes() {
    jobs.apply(Jobs.manifest("guarded", 2, 2, "[]"));
    jobs.apply(Jobs.manifest("neighbour", 2, 2, "[]"));
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(jobs.phase("guarded")).isEqualTo("Running");
      assertThat(jobs.phase("neighbour")).isEqualTo("Running");
    });
    NetworkPolicy policy = policy("guarded");
    assertThat(policy).as("the operator created the job's NetworkPolicy").isNotNull();
    assertThat(policy.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
      assertThat(o.getKind()).isEqualTo("TrainingJob");
      assertThat(o.getName()).isEqualTo("guarded");
      assertThat(o.getController()).isTrue();
    });
    assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");

    // the policy's pod selector, applied to the namespace's real pods: the job's balancer, nothing else
    List<Pod> pods = env.admin().pods().inNamespace(jobs.namespace()).list().getItems();
    assertThat(pods.stream().filter(p -> selects(policy.getSpec().getPodSelector(), p.getMetadata().getLabels())))
        .extracting(p -> p.getMetadata().getLabels().get("ballast.dev/role") + "/" + p.getMetadata().getLabels().get("ballast.dev/job"))
        .isNotEmpty().containsOnly("balancer/guarded");

    var rules = policy.getSpec().getIngress();
    assertThat(rules).hasSize(4);
    // 1. the job's own pods (its sidecars), in its own namespace: gRPC and HTTP; the neighbour's pods are not peers
    NetworkPolicyPeer own = rules.get(0).getFrom().get(0);
    assertThat(own.getNamespaceSelector()).isNull();
    assertThat(jobs.workers("guarded")).isNotEmpty()
        .allSatisfy(w -> assertThat(selects(own.getPodSelector(), w.getMetadata().getLabels())).isTrue());
    assertThat(jobs.workers("neighbour")).isNotEmpty()
        .allSatisfy(w -> assertThat(selects(own.getPodSelector(), w.getMetadata().getLabels())).isFalse());
    assertThat(ports(rules.get(0))).containsExactly(8471, 8472);
    // 2. the operator's pods, in the operator's namespace (one peer with both selectors: both must match)
    NetworkPolicyPeer operator = rules.get(1).getFrom().get(0);
    var operatorNamespace = env.admin().namespaces().withName(BallastEnvironment.NAMESPACE).get();
    assertThat(selects(operator.getNamespaceSelector(), operatorNamespace.getMetadata().getLabels()))
        .as("the API server's kubernetes.io/metadata.name label of the operator's namespace").isTrue();
    var chartOperatorPodLabels = env.admin().apps().deployments().inNamespace(BallastEnvironment.NAMESPACE)
        .list().getItems().stream().map(d -> d.getSpec().getTemplate().getMetadata().getLabels())
        .filter(l -> "operator".equals(l.get("app.kubernetes.io/component"))).findFirst().orElseThrow();
    assertThat(selects(operator.getPodSelector(), chartOperatorPodLabels)).as("the chart's operator pods").isTrue();
    assertThat(ports(rules.get(1))).containsExactly(8472);
    // 3. monitoring namespaces: HTTP only
    assertThat(rules.get(2).getFrom()).singleElement().satisfies(peer -> {
      assertThat(peer.getPodSelector()).isNull();
      assertThat(peer.getNamespaceSelector().getMatchLabels()).isEqualTo(Map.of("ballast.dev/monitoring", "true"));
    });
    assertThat(ports(rules.get(2))).containsExactly(8472);
    // 4. health from anywhere: the kubelet probes it
    assertThat(rules.get(3).getFrom()).isEmpty();
    assertThat(ports(rules.get(3))).containsExactly(8473);

    assertThat(policy("neighbour").getSpec().getPodSelector().getMatchLabels())
        .containsEntry("ballast.dev/job", "neighbour");

    // the policy goes with its job (the real garbage collector)
    env.kubectl("delete", "tj", "guarded", "-n", jobs.namespace(), "--wait=false").ok();
    env.admin().network().v1().networkPolicies().inNamespace(jobs.namespace()).withName("guarded-balancer")
        .waitUntilCondition(Objects::isNull, 2, TimeUnit.MINUTES);
    jobs.deleteAll();
  }
}
