package dev.ballast.e2e.datapath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.Jobs;
import dev.ballast.e2e.support.PriorityClasses;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The balancer follows the job's life (docs/elastic.md, "The balancer"): it runs only while the job has a world to
 * plan for, its load history survives a restart and scale-to-zero, and every new world's first plan comes from that
 * history and is adopted at the world's first step; with balancer.mode off there is neither balancer nor sidecar;
 * a balancer that cannot plan says so in the job's conditions.
 */
@E2eTest
class BalancerLifeTest {
  static final Duration WAIT = Duration.ofMinutes(3);
  final BallastEnvironment env;
  final Jobs jobs;

  BalancerLifeTest(BallastEnvironment env) {
    this.env = env;
    this.jobs = new Jobs(env, BalancerLifeTest.class);
  }

  @SuppressWarnings("unchecked")
  Map<String, Object> balancerStatus(String job) {
    Object b = jobs.status(job).get("balancer");
    return b == null ? Map.of() : (Map<String, Object>) b;
  }

  /** Waits until world {@code generation}'s first plan is adopted by every rank; returns status.balancer then. */
  Map<String, Object> firstPlanAdopted(String job, long generation) {
    await().atMost(WAIT).untilAsserted(() -> {
      Map<String, Object> b = balancerStatus(job);
      assertThat(number(b, "firstPlanGeneration")).as("status.balancer %s", b).isEqualTo(generation);
      assertThat(b).containsKey("firstPlanSteps");
    });
    return balancerStatus(job);
  }

  static long number(Map<?, ?> m, String key) {
    return m.get(key) == null ? -1 : ((Number) m.get(key)).longValue();
  }

  Deployment balancerDeployment(String job) {
    return env.admin().apps().deployments().inNamespace(jobs.namespace()).withName(job + "-balancer").get();
  }

  /** observedSteps of the persisted load history (ConfigMap {@code <job>-balancer-history}), or -1 without one. */
  long persistedSteps(String job) {
    ConfigMap cm = env.admin().configMaps().inNamespace(jobs.namespace()).withName(job + "-balancer-history").get();
    if (cm == null || cm.getData() == null || cm.getData().get("history.json") == null) return -1;
    Matcher m = Pattern.compile("\"observedSteps\":(\\d+)").matcher(cm.getData().get("history.json"));
    assertThat(m.find()).as("history.json names its observedSteps").isTrue();
    return Long.parseLong(m.group(1));
  }

  @Test
  void theLoadHistorySurvivesARestartAndScaleToZeroAndPlansEveryNewWorldBeforeItsFirstStep() {
    jobs.apply(Jobs.reportingManifest("lives", ""));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("lives")).isEqualTo("Running"));
    Map<String, Object> first = firstPlanAdopted("lives", 1);
    assertThat(first.get("firstPlanSource")).as("a new job has no history: its first plan waits for steps")
        .isEqualTo("steps");
    await().atMost(WAIT).untilAsserted(() -> assertThat(persistedSteps("lives")).isGreaterThanOrEqualTo(10));

    // A balancer restart: the new process starts from the persisted history (its dashboard says how many steps).
    Pod before = jobs.balancers("lives").get(0);
    long persistedBefore = persistedSteps("lives");
    env.kubectl("delete", "pod", before.getMetadata().getName(), "-n", jobs.namespace()).ok();
    await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
      Pod now = jobs.balancers("lives").stream().filter(p -> !p.getMetadata().getName().equals(before.getMetadata().getName()))
          .findFirst().orElseThrow();
      assertThat(number(Serialization.unmarshal(DataPathTest.get(now, 8472, "/v1/status",
          DataPathTest.token(env, jobs.namespace(), "lives")), Map.class),
          "historyRestoredSteps"))
          .isGreaterThanOrEqualTo(persistedBefore);
    });

    // A new world after the restart: its first plan comes from the restored history, adopted at its first step.
    jobs.patch("lives", "{\"spec\":{\"balancer\":{\"replanEverySteps\":25}}}");
    Map<String, Object> second = firstPlanAdopted("lives", 2);
    assertThat(second.get("firstPlanSource")).isEqualTo("history");
    assertThat(number(second, "firstPlanSteps")).as("steps from world 2's first step to its first adopted plan")
        .isZero();
    assertThat(jobs.phase("lives")).isEqualTo("Running");

    // Suspended: no world to plan for, no balancer; the history stays.
    long persistedWhenSuspended = persistedSteps("lives");
    jobs.patch("lives", "{\"spec\":{\"suspend\":true}}");
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(jobs.phase("lives")).isEqualTo("Suspended");
      assertThat(balancerDeployment("lives").getSpec().getReplicas()).isZero();
      assertThat(jobs.balancers("lives")).isEmpty();
    });
    assertThat(persistedSteps("lives")).isGreaterThanOrEqualTo(persistedWhenSuspended);

    // Resumed: a fresh balancer process, whose only memory is the ConfigMap, plans world 3 before its first step.
    jobs.patch("lives", "{\"spec\":{\"suspend\":false}}");
    Map<String, Object> third = firstPlanAdopted("lives", 3);
    assertThat(third.get("firstPlanSource")).isEqualTo("history");
    assertThat(number(third, "firstPlanSteps")).isZero();
    assertThat(balancerDeployment("lives").getSpec().getReplicas()).isEqualTo(1);
    jobs.deleteAll();
  }

  @Test
  void withTheBalancerOffPodsRunWithoutASidecarABalancerOrASecret() {
    jobs.apply(Jobs.manifest("alone", 1, 1, 8, 8, "env: []") + "  balancer: {mode: \"off\"}\n");
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("alone")).isEqualTo("Running"));
    assertThat(jobs.condition("alone", "Ready")).hasValueSatisfying(c -> assertThat(c.get("status")).isEqualTo("True"));
    assertThat(jobs.condition("alone", "Balancing")).isEmpty();
    Pod worker = jobs.workers("alone").get(0);
    assertThat(worker.getSpec().getInitContainers()).extracting(Container::getName).doesNotContain("ballast-sidecar");
    assertThat(worker.getStatus().getContainerStatuses()).singleElement()
        .satisfies(s -> assertThat(s.getState().getRunning()).isNotNull());
    assertThat(balancerDeployment("alone")).isNull();
    assertThat(env.admin().secrets().inNamespace(jobs.namespace()).list().getItems())
        .extracting(secret -> secret.getMetadata().getName())
        .noneMatch(name -> name.startsWith("alone-sidecar-auth"));
    for (String tlsSecret : new String[] {"alone-ca", "alone-balancer-tls"}) {
      assertThat(env.admin().secrets().inNamespace(jobs.namespace()).withName(tlsSecret).get()).as(tlsSecret).isNull();
    }
    assertThat(env.admin().network().v1().networkPolicies().inNamespace(jobs.namespace()).withName("alone-balancer").get())
        .as("no NetworkPolicy guards a balancer that does not exist").isNull();
    jobs.deleteAll();
  }

  @Test
  void aBalancerThatCannotPlanMakesTheJobNotReadyWithItsReason() {
    jobs.apply(Jobs.reportingManifest("cramped", ", memoryBudgetBytes: 1"));
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(jobs.phase("cramped")).isEqualTo("Running");
      assertThat(jobs.condition("cramped", "Balancing")).hasValueSatisfying(c -> {
        assertThat(c.get("status")).isEqualTo("False");
        assertThat(c.get("reason")).isEqualTo("BalancerConfigError");
        assertThat((String) c.get("message")).startsWith("cannot plan world generation 1: memoryBudgetBytes 1 is below");
      });
      assertThat(jobs.condition("cramped", "Ready")).hasValueSatisfying(c -> {
        assertThat(c.get("status")).isEqualTo("False");
        assertThat(c.get("reason")).isEqualTo("BalancerConfigError");
      });
    });
    assertThat((String) balancerStatus("cramped").get("planError")).contains("memoryBudgetBytes 1");
    jobs.deleteAll();
  }

  /**
   * A balancer pod the API server refuses (here a quota on the namespace's pods without a PriorityClass, which the
   * workers have and the balancer has not): the workers run, and the job's status says why its balancer does not,
   * in the API server's words; once the quota is gone the ReplicaSet creates the pod and the balancer plans.
   */
  @Test
  void aBalancerPodTheNamespaceRefusesIsNamedInStatusAndPlansOnceItIsLetIn() {
    try (var classes = PriorityClasses.apply(env, "balancer-life")) {
      env.kubectlStdin("""
          apiVersion: v1
          kind: ResourceQuota
          metadata: {name: classless}
          spec:
            hard: {pods: "0"}
            scopeSelector: {matchExpressions: [{scopeName: PriorityClass, operator: DoesNotExist}]}
          """, "apply", "-n", jobs.namespace(), "-f", "-").ok();
      jobs.apply(Jobs.reportingManifest("refused", "").replace("      containers:\n",
          "      priorityClassName: " + classes.low() + "\n      containers:\n"));
      await().atMost(WAIT).untilAsserted(() -> {
        assertThat(jobs.phase("refused")).isEqualTo("Running");
        assertThat(jobs.condition("refused", "Balancing")).hasValueSatisfying(c -> {
          assertThat(c.get("status")).isEqualTo("False");
          assertThat(c.get("reason")).isEqualTo("BalancerNotRunning");
          assertThat((String) c.get("message")).startsWith("the balancer is not running: its pod cannot be created"
              + " (FailedCreate): pods \"refused-balancer-").contains("exceeded quota: classless")
              .endsWith("; the workers train on the static expert layout until it plans");
        });
      });
      assertThat(jobs.status("refused").get("reason")).as("the REASON column").isEqualTo("BalancerNotRunning");
      assertThat(env.kubectl("get", "events", "-n", jobs.namespace(), "--field-selector",
          "reason=BalancerNotRunning,involvedObject.name=refused", "-o", "name").ok().stdout().lines()).hasSize(1);

      env.kubectl("delete", "resourcequota", "classless", "-n", jobs.namespace()).ok();
      await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.condition("refused", "Balancing"))
          .hasValueSatisfying(c -> assertThat(c.get("reason")).isEqualTo("Planning")));
      assertThat(jobs.status("refused").get("reason")).isNull();
      assertThat(jobs.restarts("refused")).isZero();
      jobs.deleteAll();
    }
  }

  /**
   * An operator upgrade with a job running (here: the operator restarted with new agent images, which changes the
   * balancer Deployment's template): the balancer rolls to the new template and restores its history, and nothing
   * else restarts: the same worker pods, the same world generation, no restart counted.
   */
  @Test
  void anOperatorUpgradeRollsTheBalancerAndRestartsNoWorker() {
    jobs.apply(Jobs.reportingManifest("upgraded", ""));
    firstPlanAdopted("upgraded", 1);
    await().atMost(WAIT).untilAsserted(() -> assertThat(persistedSteps("upgraded")).isGreaterThanOrEqualTo(10));
    List<String> workers = jobs.workers("upgraded").stream().map(p -> p.getMetadata().getUid()).sorted().toList();
    Object restartsBefore = jobs.status("upgraded").get("restarts");
    String balancerBefore = jobs.balancers("upgraded").get(0).getMetadata().getUid();
    String upgraded = "ghcr.io/ballast-dev/agent:0.1.1-upgrade";
    try {
      env.killOperator();
      env.startOperator(Map.of("BALLAST_SIDECAR_IMAGE", upgraded, "BALLAST_BALANCER_IMAGE", upgraded));
      await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
        Pod balancer = jobs.balancers("upgraded").stream()
            .filter(p -> !p.getMetadata().getUid().equals(balancerBefore)).findFirst().orElseThrow();
        assertThat(balancer.getSpec().getContainers().get(0).getImage()).isEqualTo(upgraded);
        assertThat(number(Serialization.unmarshal(DataPathTest.get(balancer, 8472, "/v1/status",
            DataPathTest.token(env, jobs.namespace(), "upgraded")), Map.class),
            "historyRestoredSteps")).as("the new balancer restored the persisted history").isPositive();
      });
      assertThat(jobs.workers("upgraded").stream().map(p -> p.getMetadata().getUid()).sorted().toList())
          .as("the same worker pods: none restarted").isEqualTo(workers);
      Map<String, Object> status = jobs.status("upgraded");
      assertThat(number((Map<?, ?>) status.get("world"), "generation")).as("no new world").isEqualTo(1);
      assertThat(status.get("restarts")).as("no restart counted").isEqualTo(restartsBefore);
      assertThat(jobs.phase("upgraded")).isEqualTo("Running");
    } finally {
      env.killOperator();
      env.startOperator(Map.of());
    }
    jobs.deleteAll();
  }
}
