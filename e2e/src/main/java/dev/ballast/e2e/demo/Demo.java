package dev.ballast.e2e.demo;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.Jobs;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * {@code bin/ballast demo}: a local cluster with simulated GPU nodes, the Helm chart, the operator,
 * and a sample MoE job admitted as a gang, whose workers run Ballast's reference trainer (2 pods x 2 GPUs, expert
 * parallel across both pods, replicate plans); prints where its workers run and what the trainers log, then plays a
 * recovery scene (a node of the job deleted: the world restarts elsewhere, with the balancer's plan for it) and says
 * how to look further, then keeps everything running until Ctrl-C, when it shuts all of it down.
 *
 * <p>With {@code --smoke} it stops as soon as every rank has adopted the balancer's first plan and
 * exits 0, or exits 1 with the reason; either way it cleans up. CI runs it on the clean clone before
 * the tests, so the README's first command cannot silently break.
 */
public final class Demo {
  static final String CLUSTER = System.getenv().getOrDefault("BALLAST_CLUSTER", "ballast");
  static final String NAMESPACE = "default";
  static final String JOB = "moe-demo";
  static final String MANIFEST = "e2e/demo/moe-demo.yaml";

  public static void main(String[] args) throws Exception {
    boolean smoke = List.of(args).contains("--smoke");
    try {
      run(smoke);
    } catch (Exception e) {
      System.err.println("\nbin/ballast demo failed: " + e.getMessage());
      System.exit(1);
    }
    // the shutdown hook stops everything
    if (smoke) System.exit(0);
  }

  private static void run(boolean smoke) throws Exception {
    Path root = BallastEnvironment.repositoryRoot();
    BallastEnvironment env = new BallastEnvironment(root, CLUSTER, root.resolve("e2e/target/demo-logs"));
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      System.out.println("\nStopping: the operator, Ballast's pods and the cluster '" + CLUSTER + "' ...");
      env.stop(true);
      System.out.println("Stopped.");
      stopped.countDown();
    }));
    env.start();

    System.out.println("\nApplying the sample job " + MANIFEST);
    env.kubectl("apply", "-n", NAMESPACE, "-f", root.resolve(MANIFEST).toString()).ok();
    waitForRunning(env);
    System.out.println();
    System.out.println(topologyTable(env));
    waitForAdoptedPlan(env);
    System.out.println();
    System.out.println(env.kubectl("get", "tj", "-n", NAMESPACE).ok().stdout());
    System.out.println(trainerOutput(env));
    if (smoke) {
      System.out.println(dashboard(env));
      System.out.println("Smoke test passed: the job is Running and every rank adopted the balancer's plan.");
      return;
    }
    recoveryScene(env);
    System.out.println(dashboard(env)); // after the scene: the lost node may have taken the balancer's address with it
    System.out.println("""
        The operator chose the nodes for the whole gang before any pod was scheduled: it filled
        NVLink domains and one rack first, created the pods gated and pinned, then released them
        together to kube-scheduler. Node rank follows the topology. Each pod's sidecar (the real
        Ballast agent) is connected to the job's balancer, authenticated with the job's secret.
        Each pod runs the reference trainer: one JVM, one rank thread per GPU, the ranks of both pods
        joined by gRPC collectives (the node-rank-0 pod hosts the rendezvous at MASTER_ADDR). Every rank
        reports its expert counts every step; the balancer re-plans every 50 steps (sooner while the gate
        is still learning and its plan's predicted imbalance exceeds 1.1), and every rank adopts each new
        plan at the same step (an all-reduce over all ranks of both pods). PLAN is the plan all
        ranks use, IMBALANCE its busiest GPU over the mean (predicted; the balancer's /q/metrics on port
        8473 has the measured imbalance of the trainers' steps, ballast_balancer_imbalance{source="measured"}).

        Look further (in another terminal):
          export KUBECONFIG=%s
          export PATH=%s:$PATH
          kubectl describe tj %s          # conditions and the admission events
          kubectl get tj %s -o yaml       # status.world: ranks, nodes, domains, racks
          kubectl get pods -o wide -l ballast.dev/job=%s
          kubectl get nodes -L nvidia.com/gpu.clique,topology.kubernetes.io/rack
        Logs: %s (the trainers' output: pods/default_<pod>_trainer.log)

        Press Ctrl-C to stop everything.""".formatted(env.kubeconfig(), env.bin("kubectl").getParent(), JOB, JOB, JOB,
        env.logs()));
    stopped.await();
  }

  /**
   * The job lives through the loss of a machine: one of its nodes is deleted (its pods' processes die with it), the
   * operator stops the rest of the world and admits a new one elsewhere, and the balancer's first plan for it, made
   * from the load history of the world before, is adopted by every rank. The reference trainer starts the new world
   * from step 1: under the process kubelet there are no volumes for spec.checkpoint (docs/trainer.md, "Checkpoints").
   */
  static void recoveryScene(BallastEnvironment env) throws InterruptedException {
    List<String> world = Jobs.worldNodes(jobStatus(env));
    String lost = world.get(world.size() - 1);
    boolean balancerThere = pods(env, "balancer").stream().anyMatch(p -> lost.equals(p.getSpec().getNodeName()));
    System.out.println("\nRecovery scene. Deleting node " + lost + " (a lost machine: its pods' processes die with it)"
        + (balancerThere ? "; the job's balancer runs there too" : "") + " ...");
    env.kubelet().nodeDown(lost);
    env.kubectl("delete", "node", lost, "--wait=false").ok();
    if (balancerThere) showReplacedBalancer(env, lost);
    showNewWorld(env, "the whole world restarted on nodes that are left");
    System.out.println(trainerOutput(env));
  }

  /** The demo job's pods of one role ({@code worker} or {@code balancer}), terminating ones included. */
  static List<Pod> pods(BallastEnvironment env, String role) {
    return Jobs.pods(env.admin(), NAMESPACE, JOB, role);
  }

  /** Waits for a balancer running on another node than {@code lost}; says where and after how long. */
  static void showReplacedBalancer(BallastEnvironment env, String lost) throws InterruptedException {
    long start = System.nanoTime();
    for (int i = 0; i < 240; i++) {
      List<Pod> pods = pods(env, "balancer");
      Pod next = pods.stream().filter(p -> Jobs.running(p) && !lost.equals(p.getSpec().getNodeName())).findFirst()
          .orElse(null);
      if (next != null && pods.stream().noneMatch(p -> lost.equals(p.getSpec().getNodeName()))) {
        System.out.printf("  the balancer's pod there is gone (the operator force-deletes it); a new balancer runs on %s"
            + " %.1f s after the deletion (it restores the persisted load history)%n", next.getSpec().getNodeName(),
            (System.nanoTime() - start) / 1e9);
        return;
      }
      Thread.sleep(250);
    }
    System.out.println("  (no new balancer in 60 s; see kubectl get pods -l ballast.dev/role=balancer)");
  }

  /** The last lines of the node-rank-0 trainer's output (global rank 0 prints the run) of the running world. */
  static String trainerOutput(BallastEnvironment env) {
    Pod first = pods(env, "worker").stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(p -> "0".equals(p.getMetadata().getAnnotations().get("ballast.dev/node-rank"))).findFirst().orElse(null);
    if (first == null) return "";
    Path log = env.kubelet().logDir().resolve(NAMESPACE + "_" + first.getMetadata().getName() + "_trainer.log");
    try {
      List<String> all = java.nio.file.Files.readAllLines(log);
      // the kubelet appends: an earlier demo's run of this pod name comes before this one's header
      int run = 0;
      for (int i = 0; i < all.size(); i++) {
        if (all.get(i).startsWith("data ")) run = i;
      }
      List<String> lines = all.subList(run, all.size()).stream()
          .filter(l -> l.startsWith("data ") || l.startsWith("step ") || l.contains(" adopted plan ")).toList();
      List<String> head = lines.stream().filter(l -> l.startsWith("data ")).limit(1).toList();
      List<String> tail = lines.subList(Math.max(0, lines.size() - 4), lines.size());
      return "The reference trainer's output (" + log.getFileName() + ", last lines):\n  "
          + String.join("\n  ", java.util.stream.Stream.concat(head.stream(), tail.stream()).distinct().toList());
    } catch (java.io.IOException e) {
      return "(no trainer output yet in " + log + ")";
    }
  }

  /** Waits for the job's next world to run with every rank on the balancer's plan for it; shows both. */
  static void showNewWorld(BallastEnvironment env, String expected) throws InterruptedException {
    long before = worldGeneration(env);
    for (int i = 0; i < 720 && !(worldGeneration(env) > before && "Running".equals(jobStatus(env).get("phase"))
        && allSidecarsConnected(env)); i++) {
      Thread.sleep(500);
    }
    long generation = worldGeneration(env);
    if (generation == before) throw new IllegalStateException(JOB + " got no new world in 6 minutes after the change");
    System.out.println("  world " + generation + " is Running (" + expected + "):");
    System.out.println(topologyTable(env));
    waitForAdoptedPlan(env, generation);
    System.out.println(env.kubectl("get", "tj", "-n", NAMESPACE).ok().stdout());
  }

  static long worldGeneration(BallastEnvironment env) {
    return Jobs.worldGeneration(jobStatus(env));
  }

  static void waitForRunning(BallastEnvironment env) throws InterruptedException {
    String last = "";
    for (int i = 0; i < 360; i++) {
      Map<String, Object> status = jobStatus(env);
      String phase = String.valueOf(status.getOrDefault("phase", "(no status yet)"));
      if (!phase.equals(last)) {
        System.out.println("  " + JOB + ": " + phase);
        last = phase;
      }
      if ("Running".equals(phase) && allSidecarsConnected(env)) return;
      Thread.sleep(500);
    }
    throw new IllegalStateException(JOB + " did not reach Running with all sidecars connected in 3 minutes; see"
        + " kubectl describe tj " + JOB + " and the logs in " + env.logs());
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> jobStatus(BallastEnvironment env) {
    GenericKubernetesResource job = env.admin().genericKubernetesResources("ballast.dev/v1alpha1", "TrainingJob")
        .inNamespace(NAMESPACE).withName(JOB).get();
    return job == null ? Map.of() : (Map<String, Object>) job.getAdditionalProperties().getOrDefault("status", Map.of());
  }

  /** Waits until every rank has adopted a plan of the balancer (status.balancer.planVersion past "g.0"). */
  static void waitForAdoptedPlan(BallastEnvironment env) throws InterruptedException {
    waitForAdoptedPlan(env, 0);
  }

  /** The same for world {@code generation} (0: any): a plan "generation.n", made for that world. */
  static void waitForAdoptedPlan(BallastEnvironment env, long generation) throws InterruptedException {
    System.out.println("Waiting for the trainers' loads to reach the balancer and its first plan"
        + (generation == 0 ? "" : " for world " + generation) + " to be adopted ...");
    for (int i = 0; i < 360; i++) {
      Map<String, Object> status = jobStatus(env);
      @SuppressWarnings("unchecked")
      Map<String, Object> balancer = (Map<String, Object>) status.getOrDefault("balancer", Map.of());
      Object version = balancer.get("planVersion");
      if (version != null && !version.toString().endsWith(".0")
          && (generation == 0 || version.toString().startsWith(generation + "."))) {
        System.out.println("  every rank adopted plan " + version + " at step " + balancer.get("adoptedAtStep")
            + ": predicted imbalance " + balancer.get("imbalanceAfter") + " (static layout "
            + balancer.get("imbalanceBefore") + ")");
        return;
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException("no plan was adopted by every rank of " + JOB + " in 3 minutes; see the logs in "
        + env.logs());
  }

  /**
   * Where the job's page and the operator's index of jobs are (docs/dashboard.md) and who may sign in: a ServiceAccount
   * of the demo's namespace that may get TrainingJobs there. The process kubelet's pods have local addresses and the
   * operator runs as a local process, so both are reachable as they are (on a real cluster: bin/ballast dashboard,
   * through a port-forward). Fails unless the page lets that account in and the index lists the job for it.
   */
  static String dashboard(BallastEnvironment env) throws java.io.IOException, InterruptedException {
    Pod balancer = pods(env, "balancer").stream().filter(Jobs::running).findFirst().orElseThrow(
            () -> new IllegalStateException("the balancer of " + JOB + " is not running"));
    String viewer = "ballast-demo-viewer";
    env.kubectlStdin("""
        apiVersion: v1
        kind: ServiceAccount
        metadata: {name: %1$s}
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: Role
        metadata: {name: %1$s}
        rules: [{apiGroups: [ballast.dev], resources: [trainingjobs], verbs: [get, list, watch]}]
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: RoleBinding
        metadata: {name: %1$s}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: %1$s}
        subjects: [{kind: ServiceAccount, name: %1$s, namespace: %2$s}]
        """.formatted(viewer, NAMESPACE), "apply", "-n", NAMESPACE, "-f", "-").ok();
    String address = "http://" + balancer.getStatus().getPodIP() + ":8472/dashboard/";
    String token = env.kubectl("create", "token", viewer, "-n", NAMESPACE).ok().stdout().trim();
    int answer = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create(address + "api/job")).header("Authorization", "Bearer " + token).build(),
        java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
    if (answer != 200) {
      throw new IllegalStateException("the job's page refused the demo's viewer (" + answer + "); see the logs in "
          + env.logs());
    }
    // the operator's index of jobs: the operator runs here as a local process, so its own port (on a real cluster
    // bin/ballast dashboard forwards to it); the same account must see the job listed there
    java.net.URI index = env.operatorUri("/dashboard/");
    var listed = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
            index.resolve("api/jobs")).header("Authorization", "Bearer " + token).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    if (listed.statusCode() != 200 || !listed.body().contains("\"name\":\"" + JOB + "\"")) {
      throw new IllegalStateException("the operator's index did not list " + JOB + " for the demo's viewer ("
          + listed.statusCode() + "); see the logs in " + env.logs());
    }
    return """
        Dashboard of %s: %s
        Index of jobs (the operator's): %s
          sign in to either with the token of a ServiceAccount that may get the job:
          KUBECONFIG=%s %s create token %s -n %s
          (on a real cluster: bin/ballast dashboard %s -n %s for the job's page, bin/ballast dashboard for the index,
          each through a kubectl port-forward made with your own credentials; docs/dashboard.md)
        """.formatted(JOB, address, index, env.kubeconfig(), env.bin("kubectl"), viewer, NAMESPACE, JOB, NAMESPACE);
  }

  /** The sidecar's own answer: connected to the job's balancer (authenticated with the job's secret) or not. */
  static String sidecar(Pod pod) {
    try {
      var uri = java.net.URI.create("http://" + pod.getStatus().getPodIP() + ":8470/healthz");
      String body = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(uri).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString()).body();
      return body.contains("\"connected\":true") ? "connected" : "connecting";
    } catch (Exception e) {
      return "unreachable";
    }
  }

  static boolean allSidecarsConnected(BallastEnvironment env) {
    return pods(env, "worker").stream()
        .allMatch(p -> "connected".equals(sidecar(p)));
  }

  static String topologyTable(BallastEnvironment env) {
    Map<String, Node> nodes = env.admin().nodes().list().getItems().stream()
        .collect(Collectors.toMap(n -> n.getMetadata().getName(), Function.identity()));
    List<Pod> pods = pods(env, "worker").stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null) // a past world's pods on their way out
        .sorted(Comparator.comparingInt(p -> Integer.parseInt(p.getMetadata().getAnnotations().get("ballast.dev/node-rank"))))
        .toList();
    StringBuilder t = new StringBuilder(String.format("%-6s %-22s %-14s %-18s %-8s %-8s %-12s %s%n",
        "RANK", "POD", "NODE", "NVLINK DOMAIN", "RACK", "PHASE", "POD IP", "SIDECAR"));
    for (Pod p : pods) {
      var labels = nodes.get(p.getSpec().getNodeName()).getMetadata().getLabels();
      t.append(String.format("%-6s %-22s %-14s %-18s %-8s %-8s %-12s %s%n",
          p.getMetadata().getAnnotations().get("ballast.dev/node-rank"), p.getMetadata().getName(),
          p.getSpec().getNodeName(), labels.get("nvidia.com/gpu.clique"), labels.get("topology.kubernetes.io/rack"),
          p.getStatus().getPhase(), p.getStatus().getPodIP(), sidecar(p)));
    }
    return t.toString();
  }
}
