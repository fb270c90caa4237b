package dev.ballast.operator.config;

import dev.ballast.contracts.env.ProcessEnv;
import dev.ballast.operator.desired.Names;

/** Settings the desired-state builders need; a plain record so builders are tested without Quarkus. */
public record OperatorSettings(
    String sidecarImage,
    String balancerImage,
    int sidecarPort,
    int balancerGrpcPort,
    int balancerHttpPort,
    int masterPort,
    String balancerClusterRole,
    NetworkPolicySettings networkPolicies) {

  public static OperatorSettings defaults() {
    return new OperatorSettings(OperatorConfig.AGENT_IMAGE, OperatorConfig.AGENT_IMAGE, ProcessEnv.SIDECAR_PORT,
        ProcessEnv.BALANCER_GRPC_PORT, ProcessEnv.BALANCER_HTTP_PORT, ProcessEnv.MASTER_PORT,
        Names.DEFAULT_BALANCER_CLUSTER_ROLE, NetworkPolicySettings.defaults());
  }
}
