package dev.ballast.e2e.scale;

import dev.ballast.e2e.support.BallastEnvironment;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.Logger;

/**
 * One scale run on a started environment whose pods KWOK plays ({@link BallastEnvironment#simulatedPods}): applies
 * every job at once, watches them until each that fits is Running and the one that does not is Pending for lack of
 * GPUs, and reads the operator's own figures before and after.
 */
public final class ScaleRun {
  private static final Logger LOG = Logger.getLogger(ScaleRun.class.getName());
  static final String NAMESPACE = "scale";
  static final List<String> VERBS = List.of("get", "list", "watch", "create", "update", "patch", "delete");

  private final BallastEnvironment env;
  private final ScaleSpec spec;
  private final Duration timeout;

  public ScaleRun(BallastEnvironment env, ScaleSpec spec, Duration timeout) {
    this.env = env;
    this.spec = spec;
    this.timeout = timeout;
  }

  /**
   * Waits until every GPU node is Ready and untainted by the node lifecycle controller: jobs applied before that would
   * measure the nodes' start (a job finds no room on a not-ready node and retries), not admission.
   */
  private void awaitNodesReady() throws InterruptedException {
    Instant start = Instant.now();
    Instant deadline = start.plus(timeout);
    long ready = 0;
    while (Instant.now().isBefore(deadline)) {
      ready = env.admin().nodes().list().getItems().stream()
          .filter(n -> n.getStatus() != null && n.getStatus().getAllocatable() != null
              && n.getStatus().getAllocatable().containsKey("nvidia.com/gpu"))
          .filter(n -> n.getStatus().getConditions().stream()
              .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus())))
          .filter(n -> n.getSpec().getTaints() == null || n.getSpec().getTaints().stream()
              .noneMatch(t -> t.getKey().startsWith("node.kubernetes.io/")))
          .count();
      if (ready >= spec.nodes()) {
        LOG.info("all " + ready + " GPU nodes Ready in " + Duration.between(start, Instant.now()).toMillis() + " ms");
        return;
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException("only " + ready + " of " + spec.nodes() + " GPU nodes became Ready within "
        + timeout.toSeconds() + " s");
  }

  public ScaleResult run() throws Exception {
    var admin = env.admin();
    if (admin.namespaces().withName(NAMESPACE).get() == null) {
      admin.resource(new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build()).create();
    }
    var probe = new OperatorProbe(env.logs().resolve("operator.log"), env.operatorPid());
    Map<String, Instant> runningAt = new ConcurrentHashMap<>();
    Map<String, String> pendingReason = new ConcurrentHashMap<>();
    SharedIndexInformer<GenericKubernetesResource> watch = admin.genericKubernetesResources("ballast.dev/v1alpha1",
        "TrainingJob").inNamespace(NAMESPACE).inform(new ResourceEventHandler<>() {
          @Override
          public void onAdd(GenericKubernetesResource job) {
            seen(job);
          }

          @Override
          public void onUpdate(GenericKubernetesResource old, GenericKubernetesResource job) {
            seen(job);
          }

          @Override
          public void onDelete(GenericKubernetesResource job, boolean unknown) {}

          @SuppressWarnings("unchecked")
          private void seen(GenericKubernetesResource job) {
            var status = (Map<String, Object>) job.getAdditionalProperties().getOrDefault("status", Map.of());
            String name = job.getMetadata().getName();
            if ("Running".equals(status.get("phase"))) runningAt.putIfAbsent(name, Instant.now());
            var conditions = (List<Map<String, Object>>) status.getOrDefault("conditions", List.of());
            conditions.stream().filter(c -> "Admitted".equals(c.get("type")))
                .forEach(c -> pendingReason.put(name, String.valueOf(c.get("reason"))));
          }
        });

    awaitNodesReady();
    Map<String, Double> before = probe.metrics();
    double cpuBefore = probe.cpuSeconds();
    Instant start = Instant.now();
    createAll();
    LOG.info("created " + spec.jobs().size() + " TrainingJobs in " + Duration.between(start, Instant.now()).toMillis()
        + " ms; waiting until every job that fits is Running");

    Set<String> fitting = Set.copyOf(spec.fitting().stream().map(ScaleSpec.Job::name).toList());
    String tooBig = spec.jobs().get(spec.jobs().size() - 1).name();
    double heapPeak = 0;
    double liveHeapPeak = 0;
    Instant deadline = start.plus(timeout);
    Instant lastReport = Instant.now();
    while (true) {
      Map<String, Double> now = probe.metrics();
      heapPeak = Math.max(heapPeak, OperatorProbe.sum(now, "jvm_memory_used_bytes", "area=\"heap\""));
      liveHeapPeak = Math.max(liveHeapPeak, OperatorProbe.sum(now, "jvm_gc_live_data_size_bytes"));
      boolean done = runningAt.keySet().containsAll(fitting) && "InsufficientGPUs".equals(pendingReason.get(tooBig));
      if (done) break;
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException("after " + timeout + ": " + runningAt.keySet().stream().filter(fitting::contains)
            .count() + " of " + fitting.size() + " fitting jobs Running; " + tooBig + ": " + pendingReason.get(tooBig));
      }
      if (Duration.between(lastReport, Instant.now()).toSeconds() >= 10) {
        LOG.info(runningAt.size() + " of " + fitting.size() + " fitting jobs Running");
        lastReport = Instant.now();
      }
      Thread.sleep(500);
    }
    Instant lastRunning = runningAt.values().stream().max(Instant::compareTo).orElseThrow();
    // let the too-big job retry a while longer, as it does for as long as it waits
    Thread.sleep(3_000);
    Map<String, Double> after = probe.metrics();
    double cpu = probe.cpuSeconds() - cpuBefore;
    watch.close();

    Map<String, double[]> admissions = OperatorProbe.admissions(env.logs().resolve("operator.log"));
    double[] placement = admissions.values().stream().mapToDouble(a -> a[0]).toArray();
    double[] total = admissions.values().stream().mapToDouble(a -> a[0] + a[1]).toArray();
    Map<String, Long> byVerb = new TreeMap<>();
    for (String verb : VERBS) {
      long n = Math.round(delta(before, after, "ballast_api_requests_total", "verb=\"" + verb + "\""));
      if (n > 0) byVerb.put(verb, n);
    }
    String pending = "outcome=\"unschedulable\"";
    long attempts = Math.round(delta(before, after, "ballast_admission_seconds_count", pending));
    double pendingMs = attempts == 0 ? 0 : 1000 * delta(before, after, "ballast_admission_seconds_sum", pending) / attempts;
    double podsSummed = attempts == 0 ? 0 : delta(before, after, "ballast_admission_pods_summed_sum", pending) / attempts;
    return new ScaleResult(spec.nodes(), spec.jobs().size(), fitting.size(),
        (int) runningAt.keySet().stream().filter(fitting::contains).count(), placement, total, attempts, pendingMs,
        podsSummed, Duration.between(start, lastRunning).toMillis() / 1000.0, heapPeak / (1024 * 1024),
        liveHeapPeak / (1024 * 1024), cpu,
        Math.round(delta(before, after, "ballast_reconciles_total")), byVerb);
  }

  /** Creates every job at once (16 at a time, as fast as the API server takes them). */
  private void createAll() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      var jobs = env.admin().genericKubernetesResources("ballast.dev/v1alpha1", "TrainingJob").inNamespace(NAMESPACE);
      List<Future<?>> created = spec.jobs().stream().map(j -> pool.submit(() -> jobs
          .resource(Serialization.unmarshal(ScaleSpec.manifest(j), GenericKubernetesResource.class)).create()))
          .<Future<?>>map(f -> f).toList();
      for (Future<?> f : created) f.get();
    } finally {
      pool.shutdown();
    }
  }

  private static double delta(Map<String, Double> before, Map<String, Double> after, String name, String... labels) {
    return OperatorProbe.sum(after, name, labels) - OperatorProbe.sum(before, name, labels);
  }
}
