package dev.ballast.operator.config;

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

  @WithDefault("8470")
  int sidecarPort();

  @WithDefault("8471")
  int balancerGrpcPort();

  @WithDefault("8472")
  int balancerHttpPort();

  @WithDefault("29500")
  int masterPort();

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

  default OperatorSettings settings() {
    return new OperatorSettings(sidecarImage(), balancerImage(), sidecarPort(), balancerGrpcPort(),
        balancerHttpPort(), masterPort());
  }
}
