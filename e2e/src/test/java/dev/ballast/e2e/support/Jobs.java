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
    this.env = env;
    this.client = env.admin();
    this.namespace = namespaceFor(testClass);
    if (client.namespaces().withName(namespace).get() != null) {
      client.namespaces().withName(namespace).delete();
      client.namespaces().withName(namespace).waitUntilCondition(Objects::isNull, 2, TimeUnit.MINUTES);
    }
    client.resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build()).create();
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

  @SuppressWarnings("unchecked")
  public Map<String, Object> status(String name) {
    GenericKubernetesResource job = get(name);
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

  public List<Pod> workers(String name) {
    return client.pods().inNamespace(namespace).withLabel("ballast.dev/job", name)
        .withLabel("ballast.dev/role", "worker").list().getItems();
  }
}
