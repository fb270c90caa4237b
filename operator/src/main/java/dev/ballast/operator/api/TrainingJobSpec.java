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
@ValidationRule(value = "self.parallelism.pipeline <= self.model.moeLayers",
    message = "parallelism.pipeline must not exceed model.moeLayers (every pipeline stage needs at least one MoE layer)")
@ValidationRule(
    value = "(self.workers.min * self.gpusPerWorker) % (self.parallelism.expert * self.parallelism.pipeline) == 0"
        + " && (self.workers.max * self.gpusPerWorker) % (self.parallelism.expert * self.parallelism.pipeline) == 0",
    message = "workers.min × gpusPerWorker and workers.max × gpusPerWorker must both be multiples of"
        + " parallelism.expert × parallelism.pipeline, so every world holds whole expert-parallel groups")
public class TrainingJobSpec {

  @Required
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
  public Parallelism parallelism;

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

  @Min(0)
  @JsonPropertyDescription("Seconds after the job succeeds or fails before the operator deletes it; unset keeps it forever.")
  public Integer ttlSecondsAfterFinished;
}
