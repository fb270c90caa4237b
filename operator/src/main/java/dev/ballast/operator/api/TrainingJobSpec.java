package dev.ballast.operator.api;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;

/** What the user asks for. The operator never writes it. */
@ValidationRule(value = "self.workers.min <= self.workers.max",
    message = "workers.min must be less than or equal to workers.max")
@ValidationRule(value = "self.parallelism.expert <= self.model.experts",
    message = "parallelism.expert (the expert-parallel group size in GPUs) must not exceed model.experts")
@ValidationRule(value = "self.model.topK <= self.model.experts",
    message = "model.topK must not exceed model.experts")
// A zero moeLayers is refused by its own minimum; this rule speaks only when the layer count is valid.
@ValidationRule(value = "self.model.moeLayers < 1 || self.parallelism.pipeline <= self.model.moeLayers",
    message = "parallelism.pipeline must not exceed model.moeLayers (every pipeline stage needs at least one MoE layer)")
// int() rather than string comparison: a quantity is int-or-string of unbounded length, and comparing
// it as a string would exceed the cost budget. A non-integer GPU count fails the conversion, and is
// refused that way (Kubernetes refuses it on the pod too).
@ValidationRule(
    value = "self.template.spec.containers.all(c, c.name != 'trainer' || !has(c.resources)"
        + " || ((!has(c.resources.limits) || !('nvidia.com/gpu' in c.resources.limits)"
        + " || int(c.resources.limits['nvidia.com/gpu']) == self.gpusPerWorker)"
        + " && (!has(c.resources.requests) || !('nvidia.com/gpu' in c.resources.requests)"
        + " || int(c.resources.requests['nvidia.com/gpu']) == self.gpusPerWorker)))",
    fieldPath = ".template.spec.containers",
    message = "the trainer container's nvidia.com/gpu request and limit, where set, must equal gpusPerWorker:"
        + " Ballast gives the trainer exactly gpusPerWorker GPUs (leave them out, or change gpusPerWorker)")
@ValidationRule(
    value = "(self.workers.min * self.gpusPerWorker) % (self.parallelism.expert * self.parallelism.pipeline) == 0"
        + " && (self.workers.max * self.gpusPerWorker) % (self.parallelism.expert * self.parallelism.pipeline) == 0",
    message = "workers.min × gpusPerWorker and workers.max × gpusPerWorker must both be multiples of"
        + " parallelism.expert × parallelism.pipeline, so every world holds whole expert-parallel groups")
public class TrainingJobSpec {
  /**
   * Most containers (and, separately, init containers) a worker template may list. The bound keeps the
   * template's CEL rules within the API server's cost budget; the CRD generator writes it into the schema.
   */
  public static final int MAX_TEMPLATE_CONTAINERS = 32;
  /** Also reported by the operator for jobs stored before the CRD carried this rule. */
  public static final String TRAINER_MISSING = "template.spec.containers needs a container named \"trainer\":"
      + " Ballast gives it the GPUs and the rendezvous environment";
  /** Also reported by the operator for jobs stored before the CRD carried this rule. */
  public static final String SIDECAR_NAME_RESERVED = "the container name \"ballast-sidecar\" is reserved for the"
      + " sidecar Ballast adds to every worker; rename the template's container";

  @Required
  @ValidationRule(value = "self.spec.containers.exists(c, c.name == 'trainer')", fieldPath = ".spec.containers",
      message = TrainingJobSpec.TRAINER_MISSING)
  @ValidationRule(
      value = "!self.spec.containers.exists(c, c.name == 'ballast-sidecar')"
          + " && (!has(self.spec.initContainers) || !self.spec.initContainers.exists(c, c.name == 'ballast-sidecar'))",
      fieldPath = ".spec",
      message = TrainingJobSpec.SIDECAR_NAME_RESERVED)
  @ValidationRule(value = "!has(self.spec.nodeName) || self.spec.nodeName == ''", fieldPath = ".spec.nodeName",
      message = "template.spec.nodeName must not be set: Ballast chooses the node of every worker, for the whole"
          + " gang at once; restrict the nodes with nodeSelector, node affinity or tolerations instead")
  @ValidationRule(value = "!has(self.spec.schedulingGates) || size(self.spec.schedulingGates) == 0",
      fieldPath = ".spec.schedulingGates",
      message = "template.spec.schedulingGates must be empty: Ballast gates every worker itself and releases the"
          + " whole gang at once")
  @ValidationRule(value = "!has(self.spec.restartPolicy) || self.spec.restartPolicy == 'Never'",
      fieldPath = ".spec.restartPolicy",
      message = "template.spec.restartPolicy must be Never or unset: Ballast restarts the whole world itself"
          + " (spec.restartLimit); a worker restarted alone by the kubelet could not rejoin the others")
  @ValidationRule(
      value = "self.spec.containers.all(c, !has(c.restartPolicy) && !has(c.restartPolicyRules))",
      fieldPath = ".spec.containers",
      message = "template.spec.containers must not set restartPolicy or restartPolicyRules: Ballast restarts the"
          + " whole world itself (spec.restartLimit); a container restarted alone could not rejoin the others")
  @ValidationRule(value = "!has(self.spec.activeDeadlineSeconds)", fieldPath = ".spec.activeDeadlineSeconds",
      message = "template.spec.activeDeadlineSeconds must not be set: the kubelet would stop the workers of every"
          + " world after it, one world after another; spec.activeDeadlineSeconds bounds the whole job")
  @ValidationRule(value = "!has(self.spec.hostname) && !has(self.spec.subdomain)", fieldPath = ".spec",
      message = "template.spec.hostname and subdomain must not be set: Ballast names every worker"
          + " <job>-worker-<index> under the job's headless Service")
  @ValidationRule(
      value = "!has(self.spec.affinity) || (!has(self.spec.affinity.podAffinity) && !has(self.spec.affinity.podAntiAffinity))",
      fieldPath = ".spec.affinity",
      message = "template.spec.affinity.podAffinity and podAntiAffinity are not supported: Ballast places the whole"
          + " gang itself and does not honour inter-pod affinity; use nodeSelector, node affinity or tolerations")
  @ValidationRule(value = "!has(self.spec.topologySpreadConstraints) || size(self.spec.topologySpreadConstraints) == 0",
      fieldPath = ".spec.topologySpreadConstraints",
      message = "template.spec.topologySpreadConstraints are not supported: Ballast places the whole gang by the"
          + " GPU network topology (spec.topology) and does not honour spread constraints")
  @ValidationRule(value = "!has(self.spec.resourceClaims) || size(self.spec.resourceClaims) == 0",
      fieldPath = ".spec.resourceClaims",
      message = "template.spec.resourceClaims (dynamic resource allocation) are not supported: Ballast places workers"
          + " by their resource requests (nvidia.com/gpu and the others) and cannot tell where a claim would be"
          + " allocated")
  @JsonPropertyDescription("Pod template for every worker. Its container named \"trainer\" runs the training"
      + " processes; the operator adds GPU limits, torchrun-style environment, the Ballast sidecar, hostname and subdomain.")
  public PodTemplateSpec template;

  @Required
  @JsonPropertyDescription("Elastic range of worker pods. The operator admits as many workers as fit, never fewer than min.")
  public Workers workers;

  @Default("8")
  @Min(1)
  @Max(16)
  @ValidationRule(value = "self == oldSelf",
      message = "gpusPerWorker is immutable: every rank's place in the expert layout depends on it; create a new TrainingJob to change it")
  @JsonPropertyDescription("nvidia.com/gpu per worker pod; also the number of trainer processes (local ranks) per pod. Immutable.")
  public Integer gpusPerWorker = 8;

  @Required
  @ValidationRule(value = "self == oldSelf",
      message = "parallelism is immutable: the checkpoint's expert and pipeline sharding depend on it; create a new TrainingJob to change it")
  @JsonPropertyDescription("Immutable. How the GPUs of a world are split: expert-parallel group size and pipeline stages; the rest is data-parallel.")
  public ParallelismSpec parallelism;

  @Required
  @ValidationRule(value = "self == oldSelf",
      message = "model is immutable: the expert layout and optimizer state depend on it; create a new TrainingJob to change the model")
  @JsonPropertyDescription("Shape of the Mixture-of-Experts model; immutable after creation.")
  public ModelShape model;

  @Default("{}")
  @JsonPropertyDescription("Node label keys that describe the GPU network topology.")
  public TopologySpec topology = new TopologySpec();

  @Default("{}")
  @JsonPropertyDescription("Expert load balancing: how the balancer replicates or shards experts between steps.")
  public BalancerSpec balancer = new BalancerSpec();

  @JsonPropertyDescription("Where the trainer keeps checkpoints; mounted into every worker.")
  public CheckpointSpec checkpoint;

  @Default("{}")
  @JsonPropertyDescription("How a running job grows and shrinks within workers.min..max.")
  public ElasticSpec elastic = new ElasticSpec();

  @Default("{}")
  @JsonPropertyDescription("How the operator restarts a world after failures: backoff, exit codes, lost nodes, stalls.")
  public RecoverySpec recovery = new RecoverySpec();

  @Default("5")
  @Min(0)
  @Max(1000)
  @JsonPropertyDescription("How many times the operator may restart the world after failures (retryable exits, evictions, lost workers or nodes, stalls) before the job fails. Voluntary resizes do not count.")
  public Integer restartLimit = 5;

  @Default("300")
  @Min(10)
  @Max(86400)
  @JsonPropertyDescription("Seconds the released gang may take to be bound by the scheduler before the operator rolls it back and retries.")
  public Integer admissionTimeoutSeconds = 300;

  @Default("false")
  @JsonPropertyDescription("When true, the operator deletes the workers (keeping the job) until it is set back to false.")
  public Boolean suspend = false;

  @Min(1)
  @JsonPropertyDescription("Seconds the job may be active, counted from status.startTime (its first world running, or the first since it was last resumed), before it fails with reason DeadlineExceeded and its workers stop with the checkpoint grace; unset: no limit. Time suspended does not count; waiting between worlds does. Applies live.")
  public Integer activeDeadlineSeconds;

  @Min(0)
  @JsonPropertyDescription("Seconds after the job succeeds or fails before the operator deletes it; unset keeps it forever.")
  public Integer ttlSecondsAfterFinished;
}
