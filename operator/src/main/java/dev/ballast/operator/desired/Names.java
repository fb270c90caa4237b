package dev.ballast.operator.desired;

import dev.ballast.contracts.env.ProcessEnv;

/** Names of everything the operator creates for a job; one place so that every part agrees. */
public final class Names {
  private Names() {}

  /**
   * A worker pod's name carries its world generation, so a pod of an old world still stuck Terminating on a
   * lost node never holds the name a pod of the new world needs.
   */
  public static String workerPod(String job, long generation, int index) {
    return job + "-g" + generation + "-w" + index;
  }

  /** The headless Service; also the pods' subdomain, so peers resolve as {@code <pod>.<job>.<namespace>.svc}. */
  public static String headlessService(String job) {
    return job;
  }

  public static String worldConfigMap(String job) {
    return job + "-world";
  }

  /** Balancer Deployment, Service, ServiceAccount and RoleBinding share this name. */
  public static String balancer(String job) {
    return ProcessEnv.balancerService(job);
  }

  /** The job's CA (certificate and key): the operator's alone. */
  public static String jobCa(String job) {
    return job + "-ca";
  }

  /** The balancer's TLS certificate and key, and the job's CA certificate the sidecars check it against. */
  public static String balancerTls(String job) {
    return balancer(job) + "-tls";
  }

  /** The DNS names of the balancer's Service: its certificate's subject alternative names. */
  public static java.util.List<String> balancerDnsNames(String job, String namespace) {
    String host = ProcessEnv.balancerHost(job, namespace);
    return java.util.List.of(host, host + ".cluster.local", balancer(job) + "." + namespace, balancer(job));
  }

  /**
   * The per-job token's Secret. Its name carries the job's uid: the operator may create Secrets but not read them,
   * so it must never need to tell its own Secret from another object holding the name.
   */
  public static String sidecarSecret(String job, String uid) {
    String hex = uid.replace("-", "");
    return job + "-sidecar-auth-" + hex.substring(0, Math.min(12, hex.length()));
  }

  public static String podDns(String job, long generation, int index, String namespace) {
    return workerPod(job, generation, index) + "." + headlessService(job) + "." + namespace + ".svc";
  }

  /**
   * The ClusterRole (installed by the Helm chart) every job's balancer is bound to, for a release named ballast; the
   * chart tells the operator its own ({@code BALLAST_BALANCER_CLUSTER_ROLE}).
   */
  public static final String DEFAULT_BALANCER_CLUSTER_ROLE = "ballast-balancer";
}
