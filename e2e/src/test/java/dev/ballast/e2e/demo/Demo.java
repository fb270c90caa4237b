package dev.ballast.e2e.demo;

import dev.ballast.e2e.support.BallastEnvironment;
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
 * and a sample MoE job admitted as a gang; prints where its workers run and how to look further,
 * then keeps everything running until Ctrl-C, when it shuts all of it down.
 *
 * <p>With {@code --smoke} it stops as soon as every rank has adopted the balancer's first plan and
 * exits 0, or exits 1 with the reason; either way it cleans up. CI runs it on the clean clone before
 * the tests, so the README's first command cannot silently break.
 */
public final class Demo {
  static final String CLUSTER = System.getenv().getOrDefault("BALLAST_CLUSTER", "ballast");
  static final String NAMESPACE = "default";
  static final String JOB = "olmoe-demo";

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

    System.out.println("\nApplying the sample job " + root.relativize(root.resolve("e2e/demo/olmoe-demo.yaml")));
    env.kubectl("apply", "-n", NAMESPACE, "-f", root.resolve("e2e/demo/olmoe-demo.yaml").toString()).ok();
    waitForRunning(env);
    System.out.println();
    System.out.println(topologyTable(env));
    waitForAdoptedPlan(env);
    System.out.println();
    System.out.println(env.kubectl("get", "tj", "-n", NAMESPACE).ok().stdout());
    if (smoke) {
      System.out.println("Smoke test passed: the job is Running and every rank adopted the balancer's plan.");
      return;
    }
    System.out.println("""
        The operator chose these nodes for the whole gang before any pod was scheduled: it filled
        NVLink domains and one rack first, created the pods gated and pinned, then released them
        together to kube-scheduler. Node rank follows the topology. Each pod's sidecar (the real
        Ballast agent) is connected to the job's balancer, authenticated with the job's secret.
        The trainers report their expert loads every step; the balancer re-plans every 50 steps and
        every rank adopts the new plan at the same step. PLAN is the plan all ranks use, IMBALANCE its
        busiest GPU over the mean (predicted, compute only; status.balancer has the static layout's beside it).

        Look further (in another terminal):
          export KUBECONFIG=%s
          export PATH=%s:$PATH
          kubectl describe tj %s          # conditions and the admission events
          kubectl get tj %s -o yaml       # status.world: ranks, nodes, domains, racks
          kubectl get pods -o wide -l ballast.dev/job=%s
          kubectl get nodes -L nvidia.com/gpu.clique,topology.kubernetes.io/rack
        Logs: %s

        Press Ctrl-C to stop everything.""".formatted(env.kubeconfig(), env.bin("kubectl").getParent(), JOB, JOB, JOB,
        env.logs()));
    stopped.await();
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
    System.out.println("Waiting for the trainers' loads to reach the balancer and its first plan to be adopted ...");
    for (int i = 0; i < 360; i++) {
      Map<String, Object> status = jobStatus(env);
      @SuppressWarnings("unchecked")
      Map<String, Object> balancer = (Map<String, Object>) status.getOrDefault("balancer", Map.of());
      Object version = balancer.get("planVersion");
      if (version != null && !version.toString().endsWith(".0")) {
        System.out.println("  every rank adopted plan " + version + " at step " + balancer.get("adoptedAtStep"));
        return;
      }
      Thread.sleep(500);
    }
    throw new IllegalStateException("no plan was adopted by every rank of " + JOB + " in 3 minutes; see the logs in "
        + env.logs());
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
    return env.admin().pods().inNamespace(NAMESPACE).withLabel("ballast.dev/job", JOB)
        .withLabel("ballast.dev/role", "worker").list().getItems().stream()
        .allMatch(p -> "connected".equals(sidecar(p)));
  }

  static String topologyTable(BallastEnvironment env) {
    Map<String, Node> nodes = env.admin().nodes().list().getItems().stream()
        .collect(Collectors.toMap(n -> n.getMetadata().getName(), Function.identity()));
    List<Pod> pods = env.admin().pods().inNamespace(NAMESPACE).withLabel("ballast.dev/job", JOB)
        .withLabel("ballast.dev/role", "worker").list().getItems().stream()
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
