package dev.ballast.operator.desired;

import dev.ballast.contracts.env.ProcessEnv;
import dev.ballast.operator.api.BalancerSpec;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.api.TrainingJobSpec;
import dev.ballast.operator.config.OperatorSettings;
import dev.ballast.operator.world.Seat;
import dev.ballast.operator.world.World;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeSelector;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds a worker pod from the job's template: the trainer container with its GPUs and torchrun-style
 * environment, the Ballast sidecar as a native sidecar (none with {@code balancer.mode: off}), stable
 * hostname/subdomain, a required node affinity to the node admission chose, and (for a new world) the
 * admission scheduling gate.
 */
public final class WorkerPods {
  public static final String TRAINER = "trainer";
  public static final String SIDECAR = "ballast-sidecar";
  public static final String GPU_RESOURCE = "nvidia.com/gpu";
  static final String CHECKPOINT_VOLUME = "ballast-checkpoint";
  /** The agent's readiness on its health port (both roles). */
  public static final String AGENT_READY_PATH = "/q/health/ready";

  private WorkerPods() {}

  /**
   * @param gated true for the pods of a world being admitted (released together later); false for a
   *     pod recreated in a committed world, whose node is already reserved
   */
  public static Pod build(TrainingJob job, World world, Seat seat, boolean gated, OperatorSettings settings) {
    TrainingJobSpec spec = job.getSpec();
    String name = job.getMetadata().getName();
    PodTemplateSpec template = Serialization.clone(spec.template);
    PodSpec podSpec = template.getSpec() == null ? new PodSpec() : template.getSpec();

    Map<String, String> labels = new LinkedHashMap<>();
    if (template.getMetadata() != null && template.getMetadata().getLabels() != null) {
      labels.putAll(template.getMetadata().getLabels());
    }
    labels.putAll(Labels.forRole(name, Labels.ROLE_WORKER));
    labels.put(Labels.INDEX, Integer.toString(seat.index()));
    labels.put(Labels.WORLD_GENERATION, Long.toString(world.generation()));
    String podName = Names.workerPod(name, world.generation(), seat.index());

    var meta = Owners.childMeta(job, podName, labels);
    if (template.getMetadata() != null && template.getMetadata().getAnnotations() != null) {
      meta.getAnnotations().putAll(template.getMetadata().getAnnotations());
    }
    Map<String, String> annotations = meta.getAnnotations();
    annotations.put(Labels.ASSIGNED_NODE, seat.node());
    annotations.put(Labels.NODE_RANK, Integer.toString(seat.nodeRank()));
    annotations.put(Labels.SPEC_HASH, WorldSpecHash.of(spec));
    annotations.put(Labels.WORLD_SIZE, Integer.toString(world.size()));
    if (seat.domain() != null) annotations.put(Labels.DOMAIN, seat.domain());
    if (seat.rack() != null) annotations.put(Labels.RACK, seat.rack());

    List<Container> containers = new ArrayList<>();
    for (Container c : podSpec.getContainers()) {
      containers.add(TRAINER.equals(c.getName()) ? trainer(c, job, world, seat, settings) : c);
    }
    podSpec.setContainers(containers);

    if (withSidecar(spec)) {
      List<Container> initContainers = new ArrayList<>(podSpec.getInitContainers());
      initContainers.add(sidecar(job, seat, settings));
      podSpec.setInitContainers(initContainers);
    }

    List<Volume> volumes = new ArrayList<>(podSpec.getVolumes());
    volumes.add(RestrictedSecurity.tmpVolume());
    if (spec.checkpoint != null) {
      volumes.add(new VolumeBuilder().withName(CHECKPOINT_VOLUME)
          .withNewPersistentVolumeClaim().withClaimName(spec.checkpoint.volumeClaim).endPersistentVolumeClaim()
          .build());
    }
    podSpec.setVolumes(volumes);

    podSpec.setRestartPolicy("Never"); // the operator, not the kubelet, decides restarts
    podSpec.setHostname(podName);
    podSpec.setSubdomain(Names.headlessService(name));
    podSpec.setAffinity(pinToNode(podSpec.getAffinity(), seat.node()));
    podSpec.setSchedulingGates(gated ? List.of(new PodSchedulingGate(Labels.ADMISSION_GATE)) : List.of());
    podSpec.setNodeName(null);

    Pod pod = new Pod();
    pod.setMetadata(meta);
    pod.setSpec(podSpec);
    return TemplateHash.stamp(pod);
  }

  private static Container trainer(Container fromTemplate, TrainingJob job, World world, Seat seat,
      OperatorSettings settings) {
    TrainingJobSpec spec = job.getSpec();
    String name = job.getMetadata().getName();
    String namespace = job.getMetadata().getNamespace();
    int gpus = spec.gpusPerWorker;

    Map<String, EnvVar> env = new LinkedHashMap<>();
    for (EnvVar e : fromTemplate.getEnv()) env.put(e.getName(), e);
    // Ballast's values win: a stale user-set NODE_RANK would silently break the rendezvous.
    put(env, ProcessEnv.MASTER_ADDR, Names.podDns(name, world.generation(), world.master().index(), namespace));
    put(env, ProcessEnv.MASTER_PORT_VAR, Integer.toString(settings.masterPort()));
    put(env, ProcessEnv.NNODES, Integer.toString(world.size()));
    put(env, ProcessEnv.NODE_RANK, Integer.toString(seat.nodeRank()));
    put(env, ProcessEnv.NPROC_PER_NODE, Integer.toString(gpus));
    put(env, ProcessEnv.WORLD_SIZE, Integer.toString(world.size() * gpus)); // initial value; the sidecar serves the live world
    put(env, ProcessEnv.JOB, name);
    put(env, ProcessEnv.NAMESPACE, namespace);
    put(env, ProcessEnv.POD_INDEX, Integer.toString(seat.index()));
    put(env, ProcessEnv.WORLD_GENERATION, Long.toString(world.generation()));
    put(env, ProcessEnv.GPUS_PER_WORKER, Integer.toString(gpus));
    env.put(ProcessEnv.POD_IP, new EnvVarBuilder().withName(ProcessEnv.POD_IP)
        .withNewValueFrom().withNewFieldRef().withFieldPath("status.podIP").endFieldRef().endValueFrom().build());
    if (withSidecar(spec)) put(env, ProcessEnv.SIDECAR_URL, ProcessEnv.sidecarUrl(settings.sidecarPort()));
    if (spec.checkpoint != null) put(env, ProcessEnv.CHECKPOINT_DIR, spec.checkpoint.path);
    // the budget a voluntary stop gives the trainer between SIGTERM and SIGKILL (docs/elastic.md)
    put(env, ProcessEnv.CHECKPOINT_TIMEOUT_SECONDS, Integer.toString(spec.elastic.checkpointTimeoutSeconds));

    List<VolumeMount> mounts = new ArrayList<>(fromTemplate.getVolumeMounts());
    if (spec.checkpoint != null) {
      mounts.add(new VolumeMountBuilder().withName(CHECKPOINT_VOLUME).withMountPath(spec.checkpoint.path).build());
    }
    return new ContainerBuilder(fromTemplate)
        .withEnv(new ArrayList<>(env.values()))
        .withResources(trainerResources(fromTemplate, gpus))
        .withVolumeMounts(mounts)
        .build();
  }

  private static Container sidecar(TrainingJob job, Seat seat, OperatorSettings settings) {
    String name = job.getMetadata().getName();
    String namespace = job.getMetadata().getNamespace();
    return new ContainerBuilder()
        .withName(SIDECAR)
        .withImage(settings.sidecarImage())
        .withArgs("sidecar")
        .withRestartPolicy("Always") // a native sidecar: starts before the trainer, stops after it
        // the trainer API listens on the pod's loopback only, so it is no container port; health is
        .addNewPort().withName("health").withContainerPort(ProcessEnv.HEALTH_PORT).endPort()
        .withEnv(
            env(ProcessEnv.ROLE, "sidecar"),
            env(ProcessEnv.JOB, name),
            env(ProcessEnv.NAMESPACE, namespace),
            env(ProcessEnv.POD_INDEX, Integer.toString(seat.index())),
            env(ProcessEnv.GPUS_PER_WORKER, Integer.toString(job.getSpec().gpusPerWorker)),
            env(ProcessEnv.SIDECAR_PORT_VAR, Integer.toString(settings.sidecarPort())),
            env(ProcessEnv.BALANCER_ADDRESS, ProcessEnv.balancerHost(name, namespace) + ":" + settings.balancerGrpcPort()),
            secretEnv(ProcessEnv.TLS_CA, Names.balancerTls(name), BalancerTls.CA_CERT),
            new EnvVarBuilder().withName(ProcessEnv.POD_NAME)
                .withNewValueFrom().withNewFieldRef().withFieldPath("metadata.name").endFieldRef().endValueFrom()
                .build(),
            secretEnv(ProcessEnv.TOKEN, Names.sidecarSecret(name, job.getMetadata().getUid()), SidecarSecret.TOKEN_KEY))
        .withNewStartupProbe()
        .withNewHttpGet().withPath(AGENT_READY_PATH).withNewPort(ProcessEnv.HEALTH_PORT).endHttpGet()
        .withPeriodSeconds(2).withFailureThreshold(30)
        .endStartupProbe()
        .withResources(sidecarResources())
        .withSecurityContext(RestrictedSecurity.container())
        .withVolumeMounts(RestrictedSecurity.tmpMount())
        .build();
  }

  /**
   * The worker pod as far as its resource requests go (what placement reserves per worker): the
   * template's containers with the trainer's GPUs, and its init containers plus the Ballast sidecar.
   */
  public static PodSpec resourceShape(TrainingJobSpec spec) {
    PodSpec podSpec = spec.template.getSpec() == null ? new PodSpec() : Serialization.clone(spec.template.getSpec());
    List<Container> containers = new ArrayList<>();
    for (Container c : podSpec.getContainers()) {
      containers.add(TRAINER.equals(c.getName())
          ? new ContainerBuilder(c).withResources(trainerResources(c, spec.gpusPerWorker)).build() : c);
    }
    podSpec.setContainers(containers);
    if (withSidecar(spec)) {
      List<Container> initContainers = new ArrayList<>(podSpec.getInitContainers());
      initContainers.add(new ContainerBuilder().withName(SIDECAR).withRestartPolicy("Always")
          .withResources(sidecarResources()).build());
      podSpec.setInitContainers(initContainers);
    }
    return podSpec;
  }

  /**
   * Without a balancer there is nothing for a sidecar to stream to: pods run the trainer alone, with no
   * BALLAST_SIDECAR_URL, on the static expert layout (docs/elastic.md).
   */
  public static boolean withSidecar(TrainingJobSpec spec) {
    return spec.balancer.mode != BalancerSpec.Mode.OFF;
  }

  /** The template's trainer resources with exactly {@code gpus} GPUs requested and limited. */
  private static ResourceRequirements trainerResources(Container fromTemplate, int gpus) {
    ResourceRequirements resources = fromTemplate.getResources() == null
        ? new ResourceRequirements() : Serialization.clone(fromTemplate.getResources());
    Map<String, Quantity> limits = new LinkedHashMap<>(resources.getLimits());
    Map<String, Quantity> requests = new LinkedHashMap<>(resources.getRequests());
    limits.put(GPU_RESOURCE, new Quantity(Integer.toString(gpus)));
    requests.put(GPU_RESOURCE, new Quantity(Integer.toString(gpus)));
    resources.setLimits(limits);
    resources.setRequests(requests);
    return resources;
  }

  private static ResourceRequirements sidecarResources() {
    return new ResourceRequirementsBuilder()
        .addToRequests("cpu", new Quantity("100m")).addToRequests("memory", new Quantity("256Mi"))
        .addToLimits("memory", new Quantity("512Mi"))
        .build();
  }

  /** Adds "this node only" to every required node-selector term (terms are ORed, so each must carry it). */
  private static Affinity pinToNode(Affinity userAffinity, String node) {
    Affinity affinity = userAffinity == null ? new Affinity() : userAffinity;
    NodeAffinity nodeAffinity = affinity.getNodeAffinity() == null ? new NodeAffinity() : affinity.getNodeAffinity();
    NodeSelector required = nodeAffinity.getRequiredDuringSchedulingIgnoredDuringExecution();
    List<NodeSelectorTerm> terms = required == null || required.getNodeSelectorTerms().isEmpty()
        ? List.of(new NodeSelectorTerm())
        : required.getNodeSelectorTerms();
    var pin = new NodeSelectorRequirement("metadata.name", "In", List.of(node));
    List<NodeSelectorTerm> pinned = new ArrayList<>();
    for (NodeSelectorTerm term : terms) {
      List<NodeSelectorRequirement> fields = new ArrayList<>(term.getMatchFields());
      fields.add(pin);
      pinned.add(new NodeSelectorTerm(term.getMatchExpressions(), fields));
    }
    nodeAffinity.setRequiredDuringSchedulingIgnoredDuringExecution(new NodeSelector(pinned));
    affinity.setNodeAffinity(nodeAffinity);
    return affinity;
  }

  private static void put(Map<String, EnvVar> env, String name, String value) {
    env.put(name, env(name, value));
  }

  static EnvVar secretEnv(String name, String secret, String key) {
    return new EnvVarBuilder().withName(name)
        .withNewValueFrom().withNewSecretKeyRef().withName(secret).withKey(key).endSecretKeyRef().endValueFrom()
        .build();
  }

  private static EnvVar env(String name, String value) {
    return new EnvVarBuilder().withName(name).withValue(value).build();
  }
}
