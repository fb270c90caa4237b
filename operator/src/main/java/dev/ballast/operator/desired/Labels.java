package dev.ballast.operator.desired;

import java.util.LinkedHashMap;
import java.util.Map;

/** Label and annotation keys, and the label sets children carry. */
public final class Labels {
  private Labels() {}

  public static final String JOB = "ballast.dev/job";
  /**
   * Annotation on a TrainingJob: "true" pauses its reconciliation (docs/elastic.md, "Pausing reconciliation"), as
   * Strimzi's strimzi.io/pause-reconciliation.
   */
  public static final String PAUSE_RECONCILIATION = "ballast.dev/pause-reconciliation";
  public static final String ROLE = "ballast.dev/role";
  public static final String INDEX = "ballast.dev/index";
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  public static final String MANAGER = "ballast-operator";
  public static final String ROLE_WORKER = "worker";
  public static final String ROLE_BALANCER = "balancer";

  /** Hash of the desired object; a differing hash, never field equality, means "update needed". */
  public static final String TEMPLATE_HASH = "ballast.dev/template-hash";
  /** The node the operator chose for a worker: a promise of its GPUs even before the pod binds. */
  public static final String ASSIGNED_NODE = "ballast.dev/assigned-node";
  public static final String NODE_RANK = "ballast.dev/node-rank";
  public static final String DOMAIN = "ballast.dev/domain";
  public static final String RACK = "ballast.dev/rack";
  /** A label on worker pods (selectable); the world the pod belongs to. */
  public static final String WORLD_GENERATION = "ballast.dev/world-generation";
  /** Hash of the spec fields that apply at the next world (see WorldSpecHash); differing from the spec's means "restart to apply". */
  public static final String SPEC_HASH = "ballast.dev/spec-hash";
  public static final String WORLD_SIZE = "ballast.dev/world-size";
  /** When the admission gate was removed (RFC 3339); the binding timeout counts from here. */
  public static final String RELEASED_AT = "ballast.dev/released-at";

  public static final String ADMISSION_GATE = "ballast.dev/admission";

  public static Map<String, String> forJob(String job) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(MANAGED_BY, MANAGER);
    labels.put(JOB, job);
    return labels;
  }

  public static Map<String, String> forRole(String job, String role) {
    Map<String, String> labels = forJob(job);
    labels.put(ROLE, role);
    return labels;
  }

  /** Label selector of a job's worker pods. */
  public static Map<String, String> workerSelector(String job) {
    return Map.of(JOB, job, ROLE, ROLE_WORKER);
  }
}
