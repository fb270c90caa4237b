package dev.ballast.e2e.bench;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.GpuNodes;
import dev.ballast.e2e.support.Jobs;
import dev.ballast.e2e.support.OnChange;
import dev.ballast.e2e.support.PriorityClasses;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * {@code bin/ballast elasticbench [--runs N]}: how fast a running job gets a new world on the real control
 * plane (kwokctl, process kubelet, the operator and the real agent, as in the e2e suite), measured from
 * the outside by watching the API server:
 *
 * <ul>
 *   <li>a node of the job deleted → the new world Running (the operator sees a deletion at once);
 *   <li>a node of the job NotReady (its Ready condition written False by the benchmark, so Kubernetes'
 *       own detection delay — node-monitor-grace-period, 40-50 s after the last heartbeat — is excluded)
 *       → the new world Running, with {@code recovery.nodeLostAfterSeconds: 0} (the grace period Ballast
 *       waits on top is its documented setting, 60 s by default, and is added to this figure);
 *   <li>a {@code spec.workers} edit (2 → 4) → the resized world Running;
 *   <li>a job of 2 workers applied while a job of 2..4 holds all 4 nodes → the new job's world Running, after the
 *       other gave back its 2 workers above its minimum (reclaim);
 *   <li>a job of 2 workers and a high PriorityClass applied while a job of 2..2 and a low one holds both nodes → the
 *       new job's world Running, after the other's world stopped (preemption);
 *   <li>for each new world: the step at which every rank adopted the balancer's first plan for it, counted
 *       from the world's first step (target 0: the plan is ready before the first step).
 * </ul>
 *
 * Each figure is split where the API server shows it: until the new world's first pod exists (decide),
 * until its world is committed (admit and bind), until every worker runs (the kubelet starts the pods).
 */
public final class ElasticBench {
  static final String CLUSTER = "ballast-bench";
  static final Duration WAIT = Duration.ofMinutes(5);
  /** How long a world may take to adopt its first plan before the row says there was none. */
  static final Duration PLAN_WAIT = Duration.ofMinutes(2);
  static final String RECLAIM = "reclaimed for a waiting job";
  static final String PREEMPT = "preempted for a higher priority";
  static final String PREEMPT_AND_RECLAIM = "preempted and reclaimed at once";
  static final String SPEC = "elastic: {cooldownSeconds: 0, checkpointTimeoutSeconds: 10}\n"
      + "recovery: {backoffSeconds: 1, nodeLostAfterSeconds: 0}";

  /** One measured transition: when it started, when the first pod of the new world appeared, committed, ran. */
  record Sample(String scenario, double toFirstPod, double toCommitted, double toRunning, Long planStep) {}

  private final BallastEnvironment env;
  private final Jobs jobs;
  private final Map<String, Instant> firstPodOfGeneration = new ConcurrentHashMap<>();
  private final Map<String, Instant> committed = new ConcurrentHashMap<>();
  private final Map<String, Instant> running = new ConcurrentHashMap<>();
  private final Map<String, Long> planStep = new ConcurrentHashMap<>();
  private int rack = 40;

  ElasticBench(BallastEnvironment env) {
    this.env = env;
    this.jobs = new Jobs(env, ElasticBench.class);
  }

  public static void main(String[] args) throws Exception {
    int runs = 3;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--runs") && i + 1 < args.length) {
        runs = Integer.parseInt(args[++i]);
      } else {
        System.err.println("usage: bin/ballast elasticbench [--runs N]   (unknown argument '" + args[i] + "')");
        System.exit(2);
      }
    }
    Path root = BallastEnvironment.repositoryRoot();
    BallastEnvironment env = new BallastEnvironment(root, CLUSTER, root.resolve("e2e/target/elasticbench-logs"));
    // Ctrl-C (or a kill) still stops the operator, the pods' processes and the cluster
    Runtime.getRuntime().addShutdownHook(new Thread(() -> env.stop(true)));
    try {
      env.start();
      new ElasticBench(env).run(runs);
    } catch (Exception e) {
      System.err.println("\nbin/ballast elasticbench failed: " + e.getMessage() + " (logs: " + env.logs() + ")");
      System.exit(1);
    }
    System.exit(0);
  }

  void run(int runs) throws InterruptedException {
    List<Sample> samples = new ArrayList<>();
    System.out.println("| transition | to the new world's first pod (s) | to its world committed (s) | to every worker Running (s) | steps to the first adopted plan |");
    System.out.println("|---|---|---|---|---|");
    try (var classes = PriorityClasses.apply(env, "ballast-bench"); var jobWatch = watchJobs();
        var podWatch = watchPods()) {
      for (int i = 0; i < runs; i++) {
        samples.add(report(nodeLost("node deleted", false, "deleted" + i)));
        samples.add(report(nodeLost("node NotReady", true, "notready" + i)));
        samples.add(report(workersEdit("edit" + i)));
        samples.add(report(reclaim("lender" + i)));
        samples.add(report(preempt("preempted" + i, classes)));
        samples.add(report(preemptAndReclaim("both" + i, classes)));
      }
    }
    for (String scenario : List.of("node deleted", "node NotReady", "spec.workers 2→4", RECLAIM, PREEMPT,
        PREEMPT_AND_RECLAIM)) {
      List<Double> r = samples.stream().filter(s -> s.scenario().equals(scenario)).map(Sample::toRunning).sorted().toList();
      System.out.printf(Locale.ROOT, "%s → new world Running: median %.1f s, max %.1f s over %d runs%n", scenario,
          r.get(r.size() / 2), r.get(r.size() - 1), r.size());
    }
  }

  /** Prints a row of the table as soon as it is measured. */
  private static Sample report(Sample s) {
    System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %s |%n", s.scenario(), s.toFirstPod(), s.toCommitted(),
        s.toRunning(), s.planStep() == null ? "none adopted within " + PLAN_WAIT.toSeconds() + " s" : s.planStep());
    return s;
  }

  /** A 2-worker job on 3 nodes; one of its nodes is deleted or made NotReady; the world moves to the third. */
  Sample nodeLost(String scenario, boolean notReady, String job) throws InterruptedException {
    return transition(scenario, job, 3, pool -> {
      String node = jobs.worldNodes(job).get(1);
      if (notReady) return pool.notReady(node);
      Instant t0 = Instant.now();
      pool.delete(node);
      return t0;
    });
  }

  /** A job of 2..2 workers on 4 nodes, edited to 2..4. */
  Sample workersEdit(String job) throws InterruptedException {
    return transition("spec.workers 2→4", job, 4, pool -> {
      Instant t0 = Instant.now();
      jobs.patch(job, "{\"spec\":{\"workers\":{\"min\":2,\"max\":4}}}");
      return t0;
    });
  }

  /**
   * A job of 2..4 workers running on all 4 nodes of its pool; then a job of 2..2 applied, and the time until that
   * job's first world runs: the decision to give back, the first job's stop and next world, then the new job's.
   */
  Sample reclaim(String job) throws InterruptedException {
    return onPool(job, 4, pool -> {
      startJob(job, 4, pool);
      Instant t0 = Instant.now();
      jobs.apply(Jobs.elasticManifest(job + "-waiting", 2, 2, pool, "", SPEC));
      return measure(RECLAIM, job + "-waiting", 1, t0);
    });
  }

  /**
   * A job of 2..2 workers and low priority running on both nodes of its pool; then a job of 2..2 and high priority
   * applied, and the time until that job's first world runs: the decision to preempt, the first job's stop, then the
   * new job's world.
   */
  Sample preempt(String job, PriorityClasses classes) throws InterruptedException {
    return onPool(job, 2, pool -> {
      startJob(job, 2, 2, pool, classes.low());
      Instant t0 = Instant.now();
      applyJob(job + "-high", 2, 2, pool, classes.high());
      return measure(PREEMPT, job + "-high", 1, t0);
    });
  }

  /**
   * On 6 nodes, a job of 2..2 workers and low priority on 2 of them and one of 2..4 and high priority on the other 4;
   * then a job of 4..4 and high priority applied, and the time until its first world runs. Neither the second job's
   * 2 workers above its minimum nor the first job's world alone make its room: the second gives back and the first
   * stops, at once.
   */
  Sample preemptAndReclaim(String job, PriorityClasses classes) throws InterruptedException {
    return onPool(job, 6, pool -> {
      startJob(job, 2, 2, pool, classes.low());
      startJob(job + "-lender", 2, 4, pool, classes.high());
      Instant t0 = Instant.now();
      applyJob(job + "-high", 4, 4, pool, classes.high());
      return measure(PREEMPT_AND_RECLAIM, job + "-high", 1, t0);
    });
  }

  /**
   * A job of 2..2 workers on a new pool of {@code nodes} nodes, running world 1 with its first plan adopted;
   * then {@code change} (which returns when it happened) and the time until world 2 runs.
   */
  private Sample transition(String scenario, String job, int nodes, java.util.function.Function<GpuNodes, Instant> change)
      throws InterruptedException {
    return onPool(job, nodes, pool -> {
      startJob(job, 2, pool);
      return measure(scenario, job, 2, change.apply(pool));
    });
  }

  /** What a scenario does on its pool. */
  private interface OnPool {
    Sample run(GpuNodes pool) throws InterruptedException;
  }

  /** Runs {@code scenario} on a new pool of {@code nodes} nodes, then deletes its jobs and the pool. */
  private Sample onPool(String job, int nodes, OnPool scenario) throws InterruptedException {
    GpuNodes pool = new GpuNodes(env, job, rack++);
    try {
      pool.add(nodes);
      return scenario.run(pool);
    } finally {
      jobs.deleteAll();
      pool.deleteAll();
    }
  }

  /** A job of 2..{@code max} workers on the pool, running world 1 with its first plan adopted. */
  private void startJob(String job, int max, GpuNodes pool) throws InterruptedException {
    startJob(job, 2, max, pool, null);
  }

  /** The same with {@code min..max} workers and a PriorityClass (none: null). */
  private void startJob(String job, int min, int max, GpuNodes pool, String priorityClass)
      throws InterruptedException {
    applyJob(job, min, max, pool, priorityClass);
    awaitWorldRunning(job, 1);
    awaitPlan(job, 1);
  }

  private void applyJob(String job, int min, int max, GpuNodes pool, String priorityClass) {
    String podFields = priorityClass == null ? "" : "priorityClassName: " + priorityClass + "\n";
    jobs.apply(Jobs.elasticManifest(job, min, max, pool, podFields, "", SPEC));
  }

  private Sample measure(String scenario, String job, long generation, Instant t0) throws InterruptedException {
    awaitWorldRunning(job, generation);
    awaitPlan(job, generation);
    String key = job + "/" + generation;
    return new Sample(scenario, seconds(t0, firstPodOfGeneration.get(key)), seconds(t0, committed.get(key)),
        seconds(t0, running.get(key)), planStep.get(key));
  }

  private void awaitWorldRunning(String job, long generation) throws InterruptedException {
    await(() -> running.containsKey(job + "/" + generation), job + " running world " + generation);
  }

  /** Waits for the first plan of the world every rank adopted; absent after the wait, the table says so. */
  private void awaitPlan(String job, long generation) throws InterruptedException {
    Instant deadline = Instant.now().plus(PLAN_WAIT);
    while (!planStep.containsKey(job + "/" + generation) && Instant.now().isBefore(deadline)) Thread.sleep(100);
  }

  private static void await(Supplier<Boolean> done, String what) throws InterruptedException {
    Instant deadline = Instant.now().plus(WAIT);
    while (!done.get()) {
      if (Instant.now().isAfter(deadline)) throw new IllegalStateException("no " + what + " within " + WAIT);
      Thread.sleep(50);
    }
  }

  private static double seconds(Instant from, Instant to) {
    return to == null ? Double.NaN : Duration.between(from, to).toMillis() / 1000.0;
  }

  /** Records, as the watch delivers them, when each world was committed, ran, and adopted its first plan. */
  @SuppressWarnings("unchecked")
  private SharedIndexInformer<GenericKubernetesResource> watchJobs() {
    return env.admin().genericKubernetesResources("ballast.dev/v1alpha1", "TrainingJob").inNamespace(jobs.namespace())
        .inform(new OnChange<>(job -> {
          Map<String, Object> status = (Map<String, Object>) job.getAdditionalProperties().get("status");
          if (status == null) return;
          Map<String, Object> world = (Map<String, Object>) status.get("world");
          if (world == null || world.get("generation") == null) return;
          String key = job.getMetadata().getName() + "/" + ((Number) world.get("generation")).longValue();
          Instant now = Instant.now();
          committed.putIfAbsent(key, now);
          int size = ((List<?>) world.getOrDefault("nodes", List.of())).size();
          if ("Running".equals(status.get("phase")) && Integer.valueOf(size).equals(status.get("readyWorkers"))) {
            running.putIfAbsent(key, now);
          }
          Map<String, Object> balancer = (Map<String, Object>) status.get("balancer");
          String version = balancer == null ? null : (String) balancer.get("planVersion");
          if (version != null && !version.endsWith(".0") && balancer.get("adoptedAtStep") != null) {
            String planKey = job.getMetadata().getName() + "/" + version.substring(0, version.indexOf('.'));
            planStep.putIfAbsent(planKey, ((Number) balancer.get("adoptedAtStep")).longValue());
          }
        }));
  }

  private SharedIndexInformer<Pod> watchPods() {
    return env.admin().pods().inNamespace(jobs.namespace()).withLabel("ballast.dev/role", "worker")
        .inform(new OnChange<>(pod -> {
          var labels = pod.getMetadata().getLabels();
          var annotations = pod.getMetadata().getAnnotations();
          String generation = labels.getOrDefault("ballast.dev/world-generation",
              annotations == null ? null : annotations.get("ballast.dev/world-generation"));
          if (generation != null) firstPodOfGeneration.putIfAbsent(labels.get("ballast.dev/job") + "/" + generation, Instant.now());
        }));
  }
}
