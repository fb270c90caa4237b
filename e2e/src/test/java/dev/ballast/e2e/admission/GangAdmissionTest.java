package dev.ballast.e2e.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.e2e.support.ArgoHealth;
import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.FluxHealth;
import dev.ballast.e2e.support.Jobs;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Gang admission on the real scheduler: pods are created gated and pinned, released together, bound by
 * kube-scheduler to the nodes the operator chose, packed by topology; jobs that cannot fit hold nothing.
 */
@E2eTest
class GangAdmissionTest {
  static final Duration WAIT = Duration.ofMinutes(2);
  final BallastEnvironment env;
  final Jobs jobs;

  GangAdmissionTest(BallastEnvironment env) {
    this.env = env;
    this.jobs = new Jobs(env, GangAdmissionTest.class);
  }

  void apply(String name, int min, int max) {
    jobs.apply(Jobs.manifest(name, min, max, "[]"));
  }

  Map<String, Node> nodes() {
    return env.admin().nodes().list().getItems().stream()
        .collect(Collectors.toMap(n -> n.getMetadata().getName(), Function.identity()));
  }

  @Test
  void aJobIsAdmittedAsAGangPackedByTopologyAndRuns() {
    apply("packed", 2, 4);
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("packed")).isEqualTo("Running"));

    List<Pod> pods = jobs.workers("packed");
    assertThat(pods).hasSize(4).allSatisfy(p -> {
      assertThat(p.getSpec().getNodeName()).as("bound by kube-scheduler").isNotNull();
      assertThat(p.getSpec().getNodeName()).isEqualTo(p.getMetadata().getAnnotations().get("ballast.dev/assigned-node"));
      assertThat(p.getSpec().getSchedulingGates()).isEmpty();
    });
    Map<String, Node> nodes = nodes();
    Set<String> racks = pods.stream().map(p -> nodes.get(p.getSpec().getNodeName()).getMetadata().getLabels()
        .get("topology.kubernetes.io/rack")).collect(Collectors.toSet());
    assertThat(racks).as("4 whole nodes fit in one rack, so one rack is used").hasSize(1);
    // node rank follows topology: ranks sharing an NVLink domain are consecutive
    List<String> domainsByRank = pods.stream()
        .sorted(Comparator.comparingInt(p -> Integer.parseInt(p.getMetadata().getAnnotations().get("ballast.dev/node-rank"))))
        .map(p -> nodes.get(p.getSpec().getNodeName()).getMetadata().getLabels().get("nvidia.com/gpu.clique")).toList();
    assertThat(domainsByRank.get(0)).isEqualTo(domainsByRank.get(1));
    assertThat(domainsByRank.get(2)).isEqualTo(domainsByRank.get(3));

    env.kubectl("wait", "--for=condition=Ready", "tj/packed", "-n", jobs.namespace(), "--timeout=60s").ok();
    String table = env.kubectl("get", "tj", "packed", "-n", jobs.namespace()).ok().stdout();
    assertThat(table.lines().findFirst().orElseThrow().split("\\s+")).containsExactly("NAME", "PHASE", "READY",
        "DESIRED", "RESTARTS", "IMBALANCE", "PLAN", "REASON", "AGE");
    assertThat(env.kubectl("get", "tj", "packed", "-n", jobs.namespace(), "-o", "wide").ok().stdout().lines()
        .findFirst().orElseThrow().split("\\s+")).as("-o wide adds the transition's target and the generation")
        .containsExactly("NAME", "PHASE", "READY", "DESIRED", "TARGET", "GEN", "RESTARTS", "IMBALANCE", "PLAN",
            "REASON", "AGE");
    assertThat(table).contains("Running");
    assertThat(column(table, "REASON")).as("nothing in the way of a running job").isEmpty();
    assertFitsOneLine(table);
    env.kubectl("delete", "tj", "packed", "-n", jobs.namespace(), "--wait=false").ok();
  }

  /**
   * The value under {@code header} in the table's one row: kubectl left-aligns every column at its header's
   * offset, so the header's position locates it.
   */
  static String column(String table, String header) {
    List<String> lines = table.lines().toList();
    assertThat(lines).hasSize(2);
    int at = lines.get(0).indexOf(header);
    String row = lines.get(1);
    if (row.length() <= at) return "";
    String rest = row.substring(at);
    int end = rest.indexOf("   ");
    return (end < 0 ? rest : rest.substring(0, end)).trim();
  }

  /**
   * The widest value of each column in a listing of realistic jobs: a 24-character name, the longest phase and the
   * longest reason the operator sets, the plan version of a long run, an age such as 5m12s.
   */
  static final Map<String, Integer> WORST = Map.of("NAME", 24, "PHASE", "Restarting".length(),
      "REASON", "BalancerConfigError".length(), "PLAN", "12.34567".length(), "AGE", "5m12s".length());

  /**
   * Every line within 120 columns, and also the line kubectl would print with the {@link #WORST} values in place of
   * this job's (kubectl pads each column to its widest value plus 3 spaces): a listing must not wrap on a
   * 120-column terminal.
   */
  static void assertFitsOneLine(String table) {
    List<String> lines = table.lines().toList();
    assertThat(lines).allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(120));
    String header = lines.get(0);
    String[] names = header.trim().split("\\s+");
    int[] starts = new int[names.length];
    for (int i = 0, from = 0; i < names.length; i++) {
      starts[i] = header.indexOf(names[i], from);
      from = starts[i] + names[i].length();
    }
    int widest = 0;
    for (int i = 0; i < names.length; i++) {
      int at = starts[i];
      int width = i + 1 < names.length ? starts[i + 1] - at - 3
          : lines.stream().mapToInt(l -> l.length() - at).max().orElseThrow();
      widest += Math.max(width, WORST.getOrDefault(names[i], 0)) + (i + 1 < names.length ? 3 : 0);
    }
    assertThat(widest).as("the line with the widest realistic values %s", WORST).isLessThanOrEqualTo(120);
  }

  @Test
  void aJobThatCannotFitStaysPendingSaysWhyAndHoldsNoGpus() throws java.io.IOException {
    apply("too-big", 20, 20); // 20 × 8 GPUs > the 128 GPUs of the cluster
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(jobs.phase("too-big")).isEqualTo("Pending");
      assertThat(jobs.condition("too-big", "Admitted")).hasValueSatisfying(c -> {
        assertThat(c.get("reason")).isEqualTo("InsufficientGPUs");
        assertThat((String) c.get("message")).contains("20");
      });
    });
    assertThat(jobs.workers("too-big")).isEmpty();
    String table = env.kubectl("get", "tj", "too-big", "-n", jobs.namespace()).ok().stdout();
    assertThat(column(table, "PHASE")).isEqualTo("Pending");
    assertThat(column(table, "REASON")).as("kubectl get says why it waits").isEqualTo("InsufficientGPUs");
    assertFitsOneLine(table);
    assertThat(new ArgoHealth(env.root()).of(jobs.get("too-big"))).as("Argo CD health").satisfies(h -> {
      assertThat(h.status()).isEqualTo("Progressing");
      assertThat(h.message()).startsWith("Pending: ").contains("20");
    });
    assertThat(new FluxHealth(env).of(jobs.get("too-big"))).as("Flux health").satisfies(h -> {
      assertThat(h.status()).isEqualTo("InProgress");
      assertThat(h.message()).startsWith("Pending: ").contains("20");
    });
    assertThat(new FluxHealth(env).withExprs(jobs.get("too-big")).status()).as("Flux health, the chart's CEL")
        .isEqualTo("InProgress");
    env.kubectl("delete", "tj", "too-big", "-n", jobs.namespace(), "--wait=false").ok();
  }

  /** A job whose trainer requests {@code cpu} cores besides its {@code gpus} GPUs. */
  static String cpuJob(String name, int min, int max, int gpus, int cpu) {
    return Jobs.manifest(name, min, max, gpus, 4, "env: [], resources: {requests: {cpu: \"" + cpu + "\"}}");
  }

  void requireNodeCpu(int cores) {
    assertThat(nodes().values()).allSatisfy(n ->
        assertThat(n.getStatus().getAllocatable().get("cpu").toString()).isEqualTo(Integer.toString(cores)));
  }

  @Test
  void workersArePlacedOnlyWhereTheirCpuRequestsFit() {
    requireNodeCpu(96);
    // 2 GPUs each: GPUs alone would put all 4 workers on one 8-GPU node, where the scheduler could bind
    // only 2 of them (2 × (40 + the sidecar's 0.1) cpu of 96). Placement must spread them 2 + 2.
    jobs.apply(cpuJob("cpu-bound", 2, 4, 2, 40));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("cpu-bound")).isEqualTo("Running"));
    List<Pod> pods = jobs.workers("cpu-bound");
    assertThat(pods).hasSize(4).allSatisfy(p -> assertThat(p.getSpec().getNodeName()).as("bound by kube-scheduler")
        .isEqualTo(p.getMetadata().getAnnotations().get("ballast.dev/assigned-node")));
    Map<String, Long> perNode = pods.stream().collect(Collectors.groupingBy(p -> p.getSpec().getNodeName(),
        Collectors.counting()));
    assertThat(perNode).hasSize(2).allSatisfy((node, workers) -> assertThat(workers).isEqualTo(2L));
    env.kubectl("delete", "tj", "cpu-bound", "-n", jobs.namespace(), "--wait=false").ok();
  }

  @Test
  void aJobWhoseCpuRequestsCannotFitStaysPendingAndSaysSoInNumbers() {
    requireNodeCpu(96);
    // one worker of 60 (+ 0.1) cpu per 96-cpu node: 16 nodes hold 16 workers, not 20, although their GPUs would
    jobs.apply(cpuJob("cpu-starved", 20, 20, 1, 60));
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(jobs.phase("cpu-starved")).isEqualTo("Pending");
      assertThat(jobs.condition("cpu-starved", "Admitted")).hasValueSatisfying(c -> assertThat((String) c.get("message"))
          .startsWith("needs 20 workers × 1 GPU (workers.min 20, workers.max 20) but only")
          .contains("free cpu allows fewer workers than free GPUs (60.1 cpu per worker)"));
    });
    assertThat(jobs.workers("cpu-starved")).isEmpty();
    env.kubectl("delete", "tj", "cpu-starved", "-n", jobs.namespace(), "--wait=false").ok();
  }

  @Test
  void anElasticJobTakesWhatItsNamespaceQuotaAllowsAndAJobBeyondItWaitsUntilTheQuotaIsRaised() {
    var team = new Jobs(env, jobs.namespace() + "-quota");
    team.gpuQuota(16);
    // 2 to 4 workers of 8 GPUs in groups of 16: the cluster has room for 4, the quota for 2
    team.apply(Jobs.manifest("elastic", 2, 4, "[]"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(team.phase("elastic")).isEqualTo("Running"));
    assertThat(team.workers("elastic")).hasSize(2);

    team.apply(Jobs.manifest("beyond", 1, 1, 8, 8, "env: []"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(team.condition("beyond", "Admitted"))
        .hasValueSatisfying(c -> {
          assertThat(c.get("reason")).isEqualTo("ExceedsQuota");
          assertThat(c.get("message")).isEqualTo("the ResourceQuotas of namespace " + team.namespace() + " let in 0"
              + " workers and workers.min is 1: ResourceQuota gpus (requests.nvidia.com/gpu): 16 GPUs of 16 GPUs used,"
              + " 8 GPUs per worker; the job waits until the namespace's usage or its quota changes");
        }));
    String table = env.kubectl("get", "tj", "beyond", "-n", team.namespace()).ok().stdout();
    assertThat(column(table, "PHASE")).isEqualTo("Pending");
    assertThat(column(table, "REASON")).isEqualTo("ExceedsQuota");
    assertThat(team.workers("beyond")).as("no pod created, none refused").isEmpty();
    assertThat(env.admin().resourceQuotas().inNamespace(team.namespace()).withName("gpus").get().getStatus().getUsed())
        .as("the API server's own count").containsEntry("requests.nvidia.com/gpu", new Quantity("16"));
    // a job the quota could not take even in an empty namespace is told so, not left waiting
    team.apply(Jobs.manifest("huge", 3, 3, 8, 8, "env: []"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(team.condition("huge", "Admitted"))
        .hasValueSatisfying(c -> {
          assertThat(c.get("reason")).isEqualTo("QuotaTooSmall");
          assertThat(c.get("message")).isEqualTo("the ResourceQuotas of namespace " + team.namespace() + " let in at"
              + " most 2 workers with nothing else running, and workers.min is 3: ResourceQuota gpus"
              + " (requests.nvidia.com/gpu): 0 GPUs of 16 GPUs used, 8 GPUs per worker; raise the quota or lower"
              + " workers.min");
        }));
    env.kubectl("delete", "tj", "huge", "-n", team.namespace()).ok();

    // the namespace's admin raises the quota: the waiting job is admitted, the elastic one stays within it
    team.gpuQuota(24);
    await().atMost(WAIT).untilAsserted(() -> assertThat(team.phase("beyond")).isEqualTo("Running"));
    assertThat(team.workers("elastic")).hasSize(2);
    assertThat(team.worldGeneration("elastic")).as("never resized beyond its quota").isEqualTo(1);
    team.deleteAll();
  }

  @Test
  void aWorkerCountsTowardsTheQuotaWithTheDefaultsOfItsNamespacesLimitRange() {
    var team = new Jobs(env, jobs.namespace() + "-defaults");
    env.kubectlStdin("""
        apiVersion: v1
        kind: LimitRange
        metadata: {name: defaults}
        spec: {limits: [{type: Container, defaultRequest: {cpu: "4"}}]}
        ---
        apiVersion: v1
        kind: ResourceQuota
        metadata: {name: cpu}
        spec: {hard: {requests.cpu: "9"}}
        """, "apply", "-n", team.namespace(), "-f", "-").ok();
    // 1 to 4 workers of 1 GPU whose trainer asks for no cpu: the API server gives it 4, so 2 workers (8.2 cpu with
    // their sidecars) fit the quota, and the balancer's 0.5 beside them; counted without the default, 4 would seem to
    team.apply(Jobs.manifest("defaulted", 1, 4, 1, 1, "env: []"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(team.phase("defaulted")).isEqualTo("Running"));
    assertThat(team.workers("defaulted")).hasSize(2).allSatisfy(p -> assertThat(p.getSpec().getContainers().get(0)
        .getResources().getRequests()).as("the API server's LimitRanger").containsEntry("cpu", new Quantity("4")));
    await().atMost(WAIT).untilAsserted(() -> assertThat(env.admin().resourceQuotas().inNamespace(team.namespace())
        .withName("cpu").get().getStatus().getUsed()).containsEntry("requests.cpu", new Quantity("8700m")));
    assertThat(team.condition("defaulted", "Admitted")).hasValueSatisfying(c -> assertThat(c.get("status"))
        .as("admitted at once, never refused").isEqualTo("True"));
    team.deleteAll();
  }

  /**
   * A pod the API server counts otherwise than admission built it (here a RuntimeClass's overhead, added by the API
   * server's RuntimeClass plugin; a webhook's sidecar would do the same): the first world is refused part-way, and the
   * next asks for the workers that fit as the API server counted them.
   */
  @Test
  void anElasticJobLearnsFromAQuotaRefusalWhatTheApiServerCountsAndRunsWithTheWorkersThatFit() {
    var team = new Jobs(env, jobs.namespace() + "-learn");
    env.kubectlStdin("""
        apiVersion: node.k8s.io/v1
        kind: RuntimeClass
        metadata: {name: ballast-e2e-overhead}
        handler: runc
        overhead: {podFixed: {cpu: "4"}}
        """, "apply", "-f", "-").ok();
    env.kubectlStdin("""
        apiVersion: v1
        kind: ResourceQuota
        metadata: {name: cpu}
        spec: {hard: {requests.cpu: "9"}}
        """, "apply", "-n", team.namespace(), "-f", "-").ok();
    // counted as built, a worker is 0.2 cpu (trainer and sidecar) and 4 fit; the API server adds 4 cpu of overhead
    // to each, takes two and refuses the third; 2 × 4.2 and the balancer's 0.5 fit 9
    team.apply(Jobs.manifest("learner", 1, 4, 1, 1, "env: [], resources: {requests: {cpu: 100m}}")
        .replace("      containers:", "      runtimeClassName: ballast-e2e-overhead\n      containers:"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(team.phase("learner")).isEqualTo("Running"));
    assertThat(team.workers("learner")).hasSize(2);
    assertThat(env.kubectl("get", "events", "-n", team.namespace(), "--field-selector",
        "reason=ExceedsQuota,involvedObject.name=learner", "-o", "jsonpath={.items[*].message}").ok().stdout())
        .as("the refusal, in the API server's words").contains("exceeded quota: cpu, requested: requests.cpu=4200m");
    team.deleteAll();
    env.kubectl("delete", "runtimeclass", "ballast-e2e-overhead", "--ignore-not-found").ok();
  }

  @Test
  void twoJobsNeverShareAGpu() {
    apply("first", 4, 4);
    apply("second", 4, 4);
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(jobs.phase("first")).isEqualTo("Running");
      assertThat(jobs.phase("second")).isEqualTo("Running");
    });
    Set<String> first = jobs.workers("first").stream().map(p -> p.getSpec().getNodeName()).collect(Collectors.toSet());
    Set<String> second = jobs.workers("second").stream().map(p -> p.getSpec().getNodeName()).collect(Collectors.toSet());
    assertThat(first).hasSize(4);
    assertThat(second).hasSize(4).doesNotContainAnyElementsOf(first);
    env.kubectl("delete", "tj", "first", "second", "-n", jobs.namespace(), "--wait=false").ok();
  }
}
