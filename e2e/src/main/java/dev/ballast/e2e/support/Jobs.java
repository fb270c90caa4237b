package dev.ballast.e2e.support;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A test class's TrainingJobs, in its own namespace: applies them with kubectl and reads them as
 * generic resources (the suite does not depend on the operator's classes), with their pods.
 */
public final class Jobs {
  private final BallastEnvironment env;
  private final KubernetesClient client;
  private final String namespace;

  /** Starts the test class's namespace afresh, so a re-run on a kept cluster (-Dballast.e2e.keep=true) sees no old jobs. */
  public Jobs(BallastEnvironment env, Class<?> testClass) {
    this(env, namespaceFor(testClass));
  }

  /** The same, in a namespace of the test's choosing (a test that needs more than one). */
  public Jobs(BallastEnvironment env, String namespace) {
    this.env = env;
    this.client = env.admin();
    this.namespace = namespace;
    if (client.namespaces().withName(namespace).get() != null) {
      client.namespaces().withName(namespace).delete();
      client.namespaces().withName(namespace).waitUntilCondition(Objects::isNull, 2, TimeUnit.MINUTES);
    }
    client.resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build()).create();
  }

  /** Applies the ResourceQuota "gpus" to the namespace: at most {@code gpus} GPUs requested (created or changed). */
  public void gpuQuota(int gpus) {
    env.kubectlStdin("""
        apiVersion: v1
        kind: ResourceQuota
        metadata: {name: gpus}
        spec: {hard: {requests.nvidia.com/gpu: "%d"}}
        """.formatted(gpus), "apply", "-n", namespace, "-f", "-").ok();
  }

  /** Sets labels on the test's namespace, e.g. the Pod Security level the API server enforces there. */
  public void labelNamespace(Map<String, String> labels) {
    client.namespaces().withName(namespace).edit(n -> {
      n.getMetadata().getLabels().putAll(labels);
      return n;
    });
  }

  public static String namespaceFor(Class<?> testClass) {
    return testClass.getSimpleName().replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase();
  }

  public String namespace() {
    return namespace;
  }

  /**
   * A job of {@code min..max} 8-GPU workers; {@code trainerEnv} (a YAML flow list, e.g. "[]") sets the
   * stand-in trainer's fate (e2e/programs/README.md).
   */
  public static String manifest(String name, int min, int max, String trainerEnv) {
    return manifest(name, min, max, 8, 16, "env: " + trainerEnv);
  }

  /**
   * A job of {@code min..max} workers of {@code gpusPerWorker} GPUs in expert groups of
   * {@code expert} GPUs; {@code trainerFields} (YAML flow-mapping entries, e.g. "env: []") complete
   * the trainer container.
   */
  public static String manifest(String name, int min, int max, int gpusPerWorker, int expert, String trainerFields) {
    return """
        apiVersion: ballast.dev/v1alpha1
        kind: TrainingJob
        metadata: {name: %s}
        spec:
          template:
            spec:
              containers: [{name: trainer, image: registry.example/ballast-trainer:0.1.0, %s}]
          workers: {min: %d, max: %d}
          gpusPerWorker: %d
          parallelism: {expert: %d}
          model: {moeLayers: 16, experts: 64, topK: 8}
        """.formatted(name, trainerFields, min, max, gpusPerWorker, expert);
  }

  /**
   * The trainer container names the reference trainer's image (the process kubelet runs DistributedTrainMain for it,
   * with these args); a small model, so that 400 steps take about a minute on a shared 2-core machine. Its experts run
   * on this machine's CPUs and its pods talk over loopback, so the job declares those rates, the trainbench's
   * calibration (docs/cost-model.md, "Default constants and their sources"), not an H100's.
   */
  public static String referenceTrainerManifest(String name, int steps) {
    return referenceTrainerManifest(name, steps, "ballast");
  }

  /** The same with spec.balancer.planner set to {@code planner}. */
  public static String referenceTrainerManifest(String name, int steps, String planner) {
    return """
        apiVersion: ballast.dev/v1alpha1
        kind: TrainingJob
        metadata: {name: %s}
        spec:
          template:
            spec:
              containers:
              - name: trainer
                image: ghcr.io/ballast-dev/reference-trainer:0.1.0
                args: [--steps, "%d", --batch, "32", --window, "4", --dim, "16", --ffn-dim, "32", --layers, "2",
                       --experts, "8", --top-k, "2", --seed, "3", --backend, java, --routing-skew, "2",
                       --log-every, "20", --mode, replicate]
          workers: {min: 2, max: 2}
          gpusPerWorker: 2
          parallelism: {expert: 4}
          model: {moeLayers: 2, experts: 8, topK: 2, hiddenSize: 16, ffnHiddenSize: 32}
          balancer:
            mode: replicate
            planner: %s
            redundantSlotsPerGpu: 1
            replanEverySteps: 20
            hardware: {peakTflops: 0.058, gemmEfficiency: 1, nvlinkGBps: 0.0128, nicGBps: 0.022, crossRackGBps: 0.022}
        """.formatted(name, steps, planner);
  }

  /**
   * Two workers of 4 GPUs in one expert group of 8, a small model (4 layers of 16 experts), whose stand-in
   * trainers report skewed loads every 100 ms through the Python client and follow the balancer's plans;
   * {@code balancerFields}: more fields of spec.balancer after {@code replanEverySteps: 20} (e.g. ", mode: x").
   */
  public static String reportingManifest(String name, String balancerFields) {
    return reportingManifest(name, 4, 16, 2, 100, balancerFields);
  }

  /** The same with a model of {@code layers} x {@code experts} (top-k {@code topK}), a step every {@code stepMs}. */
  public static String reportingManifest(String name, int layers, int experts, int topK, int stepMs,
      String balancerFields) {
    return reportingManifest(name, layers, experts, topK, String.valueOf(stepMs), balancerFields);
  }

  /**
   * The same with the stand-ins' steps on a shared clock (e2e/programs/trainer.py): every rank of both pods reports
   * the same step numbers, so the balancer measures complete steps, as with a trainer whose pods step together.
   */
  public static String reportingManifestOnSharedClock(String name, int layers, int experts, int topK, int stepMs,
      String balancerFields) {
    return reportingManifest(name, layers, experts, topK, stepMs + ",shared", balancerFields);
  }

  /** The same with GPU rank {@code slowRank} reporting {@code factor} times its pod's compute time (a slow GPU). */
  public static String reportingManifestWithSlowRank(String name, int layers, int experts, int stepMs, int slowRank,
      int factor) {
    return reportingManifest(name, layers, experts, 2, stepMs + ",shared,slow=" + slowRank + "x" + factor, "");
  }

  private static String reportingManifest(String name, int layers, int experts, int topK, String step,
      String balancerFields) {
    return """
        apiVersion: ballast.dev/v1alpha1
        kind: TrainingJob
        metadata: {name: %s}
        spec:
          template:
            spec:
              containers:
              - name: trainer
                image: registry.example/ballast-trainer:0.1.0
                env: [{name: BALLAST_TEST_LOADS, value: "%d,%d,%s"}]
          workers: {min: 2, max: 2}
          gpusPerWorker: 4
          parallelism: {expert: 8}
          model: {moeLayers: %d, experts: %d, topK: %d}
          balancer: {replanEverySteps: 20%s}
        """.formatted(name, layers, experts, step, layers, experts, topK, balancerFields);
  }

  /**
   * A job of {@code min..max} 8-GPU workers kept on a test's node pool, with a small model (whole groups
   * of 2 workers) whose loads the stand-in trainers report every 200 ms. {@code trainerEnv}: more env
   * entries of the trainer (YAML flow, e.g. {@code {name: BALLAST_TEST_EXIT_CODE, value: "75"}}, or "");
   * {@code extraSpec}: more spec fields, one YAML line each (e.g. "restartLimit: 2").
   */
  public static String elasticManifest(String name, int min, int max, GpuNodes pool, String trainerEnv,
      String extraSpec) {
    return elasticManifest(name, min, max, pool, "", trainerEnv, extraSpec);
  }

  /** The same, with more pod-template spec fields (YAML lines, e.g. a priorityClassName). */
  public static String elasticManifest(String name, int min, int max, GpuNodes pool, String podFields,
      String trainerEnv, String extraSpec) {
    return """
        apiVersion: ballast.dev/v1alpha1
        kind: TrainingJob
        metadata: {name: %s}
        spec:
          template:
            spec:
        %s      containers:
              - name: trainer
                image: registry.example/ballast-trainer:0.1.0
                env: [{name: BALLAST_TEST_LOADS, value: "4,16,200"}%s]
          workers: {min: %d, max: %d}
          parallelism: {expert: 16}
          model: {moeLayers: 4, experts: 16, topK: 2}
          balancer: {replanEverySteps: 10}
        %s""".formatted(name, (pool.podPlacement() + podFields).indent(6),
        trainerEnv.isEmpty() ? "" : ", " + trainerEnv, min, max, extraSpec.indent(2));
  }

  /** {@code kubectl patch --type=merge} of a job. */
  public void patch(String name, String mergePatch) {
    env.kubectl("patch", "tj", name, "-n", namespace, "--type=merge", "-p", mergePatch).ok();
  }

  /** status.world.generation, or 0 before the first world. */
  public long worldGeneration(String name) {
    return worldGeneration(status(name));
  }

  /** The same, from a job's status read elsewhere. */
  @SuppressWarnings("unchecked")
  public static long worldGeneration(Map<String, Object> status) {
    Map<String, Object> world = (Map<String, Object>) status.get("world");
    return world == null || world.get("generation") == null ? 0 : ((Number) world.get("generation")).longValue();
  }

  /** The nodes of status.world in rank order. */
  public List<String> worldNodes(String name) {
    return worldNodes(status(name));
  }

  /** The same, from a job's status read elsewhere. */
  @SuppressWarnings("unchecked")
  public static List<String> worldNodes(Map<String, Object> status) {
    Map<String, Object> world = (Map<String, Object>) status.get("world");
    if (world == null) return List.of();
    return ((List<Map<String, Object>>) world.getOrDefault("nodes", List.of())).stream()
        .map(n -> (String) n.get("node")).toList();
  }

  /** status.restarts (0 when unset). */
  public int restarts(String name) {
    Object r = status(name).get("restarts");
    return r == null ? 0 : ((Number) r).intValue();
  }

  /**
   * Deletes the namespace's jobs, then force-deletes what pods remain: a test that lost nodes leaves pods
   * stuck Terminating, which would keep the next test's namespace from being deleted.
   */
  public void deleteAll() {
    env.kubectl("delete", "tj", "--all", "-n", namespace, "--wait=false").ok();
    env.kubectl("delete", "pods", "--all", "-n", namespace, "--force", "--grace-period=0").ok();
  }

  /** {@code kubectl apply} of a manifest into this namespace, with extra kubectl flags. */
  public void apply(String yaml, String... flags) {
    List<String> args = new ArrayList<>(List.of("apply", "-n", namespace, "-f", "-"));
    args.addAll(List.of(flags));
    env.kubectlStdin(yaml, args.toArray(String[]::new)).ok();
  }

  public GenericKubernetesResource get(String name) {
    return client.genericKubernetesResources("ballast.dev/v1alpha1", "TrainingJob").inNamespace(namespace)
        .withName(name).get();
  }

  public Map<String, Object> status(String name) {
    return statusOf(get(name));
  }

  /** The job's status as a map; empty when the job or its status is absent. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> statusOf(GenericKubernetesResource job) {
    Object status = job == null ? null : job.getAdditionalProperties().get("status");
    return status == null ? Map.of() : (Map<String, Object>) status;
  }

  public String phase(String name) {
    return (String) status(name).get("phase");
  }

  @SuppressWarnings("unchecked")
  public Optional<Map<String, Object>> condition(String name, String type) {
    List<Map<String, Object>> conditions = (List<Map<String, Object>>) status(name).getOrDefault("conditions", List.of());
    return conditions.stream().filter(c -> type.equals(c.get("type"))).findFirst();
  }

  /**
   * The job as a person reading a failed assertion needs it, on one line: its phase, every condition with reason and
   * message, and each worker pod with its phase and node, whether it is gated or being deleted, and why the scheduler
   * left it unbound.
   */
  @SuppressWarnings("unchecked")
  public static String describe(KubernetesClient client, GenericKubernetesResource job) {
    String namespace = job.getMetadata().getNamespace();
    String name = job.getMetadata().getName();
    Map<String, Object> status = statusOf(job);
    StringBuilder sb = new StringBuilder(name).append(": phase ").append(status.get("phase"));
    for (Map<String, Object> c : (List<Map<String, Object>>) status.getOrDefault("conditions", List.of())) {
      sb.append("; ").append(c.get("type")).append('=').append(c.get("status")).append(' ').append(c.get("reason"))
          .append(" (").append(c.get("message")).append(')');
    }
    for (Pod p : pods(client, namespace, name, "worker")) {
      sb.append("; pod ").append(p.getMetadata().getName()).append(' ')
          .append(p.getStatus() == null ? null : p.getStatus().getPhase())
          .append(" on ").append(p.getSpec().getNodeName());
      if (p.getSpec().getSchedulingGates() != null && !p.getSpec().getSchedulingGates().isEmpty()) sb.append(" gated");
      if (p.getStatus() != null) {
        p.getStatus().getConditions().stream()
            .filter(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()))
            .forEach(c -> sb.append(" (unschedulable: ").append(c.getMessage()).append(')'));
      }
      if (p.getMetadata().getDeletionTimestamp() != null) sb.append(" deleting");
    }
    return sb.toString();
  }

  public List<Pod> workers(String name) {
    return pods(client, namespace, name, "worker");
  }

  /** The job's balancer pods, terminating ones included. */
  public List<Pod> balancers(String name) {
    return pods(client, namespace, name, "balancer");
  }

  /** Whether the pod runs and is not being deleted (a replaced pod may still show Running while it terminates). */
  public static boolean running(Pod pod) {
    return "Running".equals(pod.getStatus().getPhase()) && pod.getMetadata().getDeletionTimestamp() == null;
  }

  /** A job's pods of one role ({@code worker} or {@code balancer}), terminating ones included. */
  public static List<Pod> pods(KubernetesClient client, String namespace, String job, String role) {
    return client.pods().inNamespace(namespace).withLabel("ballast.dev/job", job)
        .withLabel("ballast.dev/role", role).list().getItems();
  }
}
