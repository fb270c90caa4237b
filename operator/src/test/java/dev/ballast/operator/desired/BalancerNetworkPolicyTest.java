package dev.ballast.operator.desired;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.config.NetworkPolicySettings;
import dev.ballast.operator.config.OperatorSettings;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BalancerNetworkPolicyTest {
  final TrainingJob job = TestJobs.job("olmoe", 2, 4, 8);
  final OperatorSettings defaults = OperatorSettings.defaults();
  final OperatorSettings inCluster = new OperatorSettings(defaults.sidecarImage(), defaults.balancerImage(),
      defaults.sidecarPort(), defaults.balancerGrpcPort(), defaults.balancerHttpPort(), defaults.masterPort(),
      defaults.balancerClusterRole(), new NetworkPolicySettings(true, Optional.of("ballast-system"), "ballast.dev/monitoring"));

  static List<Integer> ports(NetworkPolicyIngressRule rule) {
    return rule.getPorts().stream().map(p -> p.getPort().getIntVal()).toList();
  }

  @Test
  void selectsTheJobsBalancerAndLetsInOnlyTheJobsPodsTheOperatorMonitoringAndProbes() {
    NetworkPolicy policy = BalancerNetworkPolicy.build(job, inCluster);
    assertThat(policy.getMetadata().getName()).isEqualTo("olmoe-balancer");
    assertThat(policy.getMetadata().getNamespace()).isEqualTo("team-a");
    assertThat(policy.getMetadata().getOwnerReferences()).singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo("uid-olmoe"));
    assertThat(policy.getSpec().getPodSelector().getMatchLabels())
        .containsEntry(Labels.JOB, "olmoe").containsEntry(Labels.ROLE, Labels.ROLE_BALANCER);
    assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress");

    var rules = policy.getSpec().getIngress();
    assertThat(rules).hasSize(4);
    // the job's own pods, in its namespace only (a podSelector alone): the sidecars' stream and the HTTP API
    assertThat(rules.get(0).getFrom()).singleElement().satisfies(peer -> {
      assertThat(peer.getNamespaceSelector()).isNull();
      assertThat(peer.getPodSelector().getMatchLabels()).containsEntry(Labels.JOB, "olmoe").doesNotContainKey(Labels.ROLE);
    });
    assertThat(ports(rules.get(0))).containsExactly(8471, 8472);
    // the operator's pods, in the operator's namespace (both selectors in one peer: AND)
    assertThat(rules.get(1).getFrom()).singleElement().satisfies(peer -> {
      assertThat(peer.getNamespaceSelector().getMatchLabels())
          .isEqualTo(Map.of("kubernetes.io/metadata.name", "ballast-system"));
      assertThat(peer.getPodSelector().getMatchLabels()).containsEntry("app.kubernetes.io/component", "operator");
    });
    assertThat(ports(rules.get(1))).containsExactly(8472);
    // monitoring namespaces: the HTTP API only (which still asks for the job's token)
    assertThat(rules.get(2).getFrom()).singleElement().satisfies(peer ->
        assertThat(peer.getNamespaceSelector().getMatchLabels()).isEqualTo(Map.of("ballast.dev/monitoring", "true")));
    assertThat(ports(rules.get(2))).containsExactly(8472);
    // health: from anywhere (the kubelet), nothing else on that port
    assertThat(rules.get(3).getFrom()).isEmpty();
    assertThat(ports(rules.get(3))).containsExactly(8473);
  }

  @Test
  void aLocalOperatorWithoutItsNamespaceGetsNoOperatorRule() {
    var rules = BalancerNetworkPolicy.build(job, defaults).getSpec().getIngress();
    assertThat(rules).hasSize(3);
    assertThat(rules).noneSatisfy(r -> assertThat(r.getFrom()).anySatisfy(p ->
        assertThat(p.getPodSelector()).isNotNull().extracting(s -> s.getMatchLabels())
            .isEqualTo(BalancerNetworkPolicy.OPERATOR_POD_LABELS)));
  }

  @Test
  void stableForTheSameJob() {
    assertThat(TemplateHash.read(BalancerNetworkPolicy.build(job, inCluster)))
        .isEqualTo(TemplateHash.read(BalancerNetworkPolicy.build(job, inCluster)))
        .isNotEqualTo(TemplateHash.read(BalancerNetworkPolicy.build(job, defaults)));
  }
}
