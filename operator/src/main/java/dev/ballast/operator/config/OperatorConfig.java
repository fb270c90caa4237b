package dev.ballast.operator.config;

import dev.ballast.contracts.env.ProcessEnv;
import dev.ballast.operator.desired.Names;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Operator configuration (application.properties or BALLAST_* environment variables). */
@ConfigMapping(prefix = "ballast")
public interface OperatorConfig {
  /**
   * The agent image bin/ballast images builds (images/images.properties; the chart passes the same by
   * default). ImageNamesTest keeps the three in step.
   */
  String AGENT_IMAGE = "ghcr.io/ballast-dev/agent:0.1.0";

  /** Image of the sidecar (the Ballast agent in its sidecar role). */
  @WithDefault(AGENT_IMAGE)
  String sidecarImage();

  /** Image of the per-job balancer (the Ballast agent in its balancer role). */
  @WithDefault(AGENT_IMAGE)
  String balancerImage();

  @WithDefault("" + ProcessEnv.SIDECAR_PORT)
  int sidecarPort();

  @WithDefault("" + ProcessEnv.BALANCER_GRPC_PORT)
  int balancerGrpcPort();

  @WithDefault("" + ProcessEnv.BALANCER_HTTP_PORT)
  int balancerHttpPort();

  @WithDefault("" + ProcessEnv.MASTER_PORT)
  int masterPort();

  /**
   * A NetworkPolicy per job that lets only the job's own pods, the operator and monitoring namespaces reach its
   * balancer (docs/security.md). Off: none is created (the chart then grants no NetworkPolicy permissions).
   */
  @WithDefault("true")
  boolean networkPolicies();

  /** The operator's own namespace, for the NetworkPolicy's operator rule (the chart sets POD_NAMESPACE). */
  java.util.Optional<String> operatorNamespace();

  /** Namespaces labelled {@code <this>: "true"} may reach a balancer's dashboard API. */
  @WithDefault(NetworkPolicySettings.DEFAULT_MONITORING_LABEL)
  String monitoringNamespaceLabel();

  /**
   * The ClusterRole each job's balancer is bound to (the chart's {@code <fullname>-balancer}, named after the
   * release so that releases never share it).
   */
  @WithDefault(Names.DEFAULT_BALANCER_CLUSTER_ROLE)
  String balancerClusterRole();

  /** Name of the leader-election Lease (the chart names it after the release, so releases never share it). */
  @WithDefault("ballast-operator")
  String leaseName();

  /** Seconds between re-checks of a job that waits for GPUs. */
  @WithDefault("15")
  int pendingRetrySeconds();

  /** Refuse to start against a Kubernetes older than this (native sidecars, GA scheduling gates). */
  @WithDefault("true")
  boolean checkServerVersion();

  /**
   * Namespace of the leader-election Lease (the chart sets the pod's namespace). When unset, as for a
   * local process, leader election is off: run one replica only.
   */
  java.util.Optional<String> leaseNamespace();

  /** Seconds a leader's Lease lasts without renewal (a new leader waits this long after a crash). */
  @WithDefault("15")
  int leaseDurationSeconds();

  /**
   * Test hook for the e2e chaos test: halt the process before its (N+1)th mutating API request. Unset
   * (always, outside that test): never.
   */
  java.util.Optional<Integer> chaosExitAfterWrites();

  default OperatorSettings settings() {
    return new OperatorSettings(sidecarImage(), balancerImage(), sidecarPort(), balancerGrpcPort(),
        balancerHttpPort(), masterPort(), balancerClusterRole(),
        new NetworkPolicySettings(networkPolicies(), operatorNamespace(), monitoringNamespaceLabel()));
  }
}
