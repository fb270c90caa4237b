package dev.ballast.e2e.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.e2e.support.ArgoHealth;
import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.FluxHealth;
import dev.ballast.e2e.support.Jobs;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A job's life on the real control plane: real process exits decide success and failure, the
 * operator's desired-vs-live logic holds against real defaulting (no writes when nothing changed),
 * status is written by server-side apply under the operator's field manager, and deleting a job lets
 * the real garbage collector remove everything it owned.
 */
@E2eTest
class JobLifecycleTest {
  static final Duration WAIT = Duration.ofMinutes(2);
  final BallastEnvironment env;
  final Jobs jobs;

  final ArgoHealth argo;
  final FluxHealth flux;

  JobLifecycleTest(BallastEnvironment env) throws java.io.IOException {
    this.env = env;
    this.argo = new ArgoHealth(env.root());
    this.flux = new FluxHealth(env);
    this.jobs = new Jobs(env, JobLifecycleTest.class);
  }

  /** A 2-worker job whose stand-in trainers run for {@code seconds} (null: until stopped) and exit with {@code code}. */
  static String manifest(String name, Integer seconds, int code) {
    String env = seconds == null ? "[]" : "[{name: BALLAST_TEST_RUN_SECONDS, value: \"" + seconds
        + "\"}, {name: BALLAST_TEST_EXIT_CODE, value: \"" + code + "\"}]";
    return Jobs.manifest(name, 2, 2, env);
  }

  @Test
  void allWorkersExitingZeroSucceedsTheJob() {
    jobs.apply(manifest("completes", 3, 0));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("completes")).isEqualTo("Succeeded"));
    assertThat(jobs.condition("completes", "Succeeded")).hasValueSatisfying(c ->
        assertThat((String) c.get("message")).contains("all 2 workers"));
    assertThat(jobs.workers("completes")).allSatisfy(p -> assertThat(p.getStatus().getPhase()).isEqualTo("Succeeded"));
    assertThat(argo.of(jobs.get("completes")).status()).as("Argo CD health").isEqualTo("Healthy");
    assertThat(flux.of(jobs.get("completes")).status()).as("Flux health: kstatus reads Ready=False")
        .isEqualTo("InProgress");
    assertThat(flux.withExprs(jobs.get("completes")).status()).as("Flux health, the chart's CEL").isEqualTo("Current");
  }

  @Test
  void aWorkerExitingNonZeroFailsTheJobWithItsExitCode() {
    jobs.apply(manifest("crashes", 2, 3));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("crashes")).isEqualTo("Failed"));
    assertThat(jobs.condition("crashes", "Failed")).hasValueSatisfying(c ->
        assertThat((String) c.get("message")).contains("container trainer exited with code 3"));
    assertThat(argo.of(jobs.get("crashes"))).as("Argo CD health").satisfies(h -> {
      assertThat(h.status()).isEqualTo("Degraded");
      assertThat(h.message()).contains("exited with code 3");
    });
    assertThat(flux.of(jobs.get("crashes"))).as("Flux health: Stalled, not waiting until a timeout").satisfies(h -> {
      assertThat(h.status()).isEqualTo("Failed");
      assertThat(h.message()).contains("exited with code 3");
    });
    assertThat(flux.withExprs(jobs.get("crashes")).status()).as("Flux health, the chart's CEL").isEqualTo("Failed");
  }

  /**
   * spec.activeDeadlineSeconds: a job whose trainers would run forever fails DeadlineExceeded once it has been active
   * that long, counted from status.startTime; its workers are stopped (with the checkpoint grace) and deleted.
   */
  @Test
  void aJobActiveForItsDeadlineFailsAndItsWorkersStop() {
    jobs.apply(manifest("bounded", null, 0) + "  activeDeadlineSeconds: 20\n"
        + "  elastic: {checkpointTimeoutSeconds: 5}\n");
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("bounded")).isEqualTo("Running"));
    Instant started = Instant.parse((String) jobs.status("bounded").get("startTime"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("bounded")).isEqualTo("Failed"));
    Instant failed = Instant.parse((String) jobs.status("bounded").get("completionTime"));
    assertThat(Duration.between(started, failed)).as("woken at the deadline, not at a periodic recheck")
        .isBetween(Duration.ofSeconds(20), Duration.ofSeconds(30));
    assertThat(jobs.condition("bounded", "Failed")).hasValueSatisfying(c -> {
      assertThat(c.get("reason")).isEqualTo("DeadlineExceeded");
      assertThat((String) c.get("message")).isEqualTo("active for 20 s since " + started
          + " (spec.activeDeadlineSeconds); its workers are stopped");
    });
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.workers("bounded")).isEmpty());
    assertThat(argo.of(jobs.get("bounded"))).as("Argo CD health").satisfies(h -> {
      assertThat(h.status()).isEqualTo("Degraded");
      assertThat(h.message()).contains("spec.activeDeadlineSeconds");
    });
    assertThat(flux.of(jobs.get("bounded")).status()).as("Flux health").isEqualTo("Failed");
    assertThat(flux.withExprs(jobs.get("bounded")).status()).as("Flux health, the chart's CEL").isEqualTo("Failed");
  }

  @Test
  void aRunningJobIsLeftAloneWhenNothingChanges() throws InterruptedException {
    String yaml = manifest("steady", null, 0);
    jobs.apply(yaml, "--server-side", "--field-manager=e2e-user");
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(jobs.phase("steady")).isEqualTo("Running");
      var balancer = env.admin().apps().deployments().inNamespace(jobs.namespace()).withName("steady-balancer").get();
      assertThat(balancer.getStatus().getReadyReplicas()).isEqualTo(1);
      // the balancer described the world and the operator recorded its verdict: the last status write
      assertThat(jobs.condition("steady", "Balancing")).isPresent();
    });
    Thread.sleep(3000); // let the last status writes settle

    assertThat(argo.of(jobs.get("steady")).status()).as("Argo CD health").isEqualTo("Healthy");
    assertThat(flux.of(jobs.get("steady")).status()).as("Flux health").isEqualTo("Current");
    assertThat(flux.withExprs(jobs.get("steady")).status()).as("Flux health, the chart's CEL").isEqualTo("Current");
    Map<String, String> before = versions("steady");
    List<Pod> pods = jobs.workers("steady");
    String poked = pods.get(0).getMetadata().getName();
    // a minute of reconciles: every pod event makes the operator reconcile the job
    for (int i = 0; i < 6; i++) {
      env.kubectl("label", "pod", poked, "-n", jobs.namespace(), "--overwrite", "e2e-poke=" + i).ok();
      Thread.sleep(10_000);
    }
    Map<String, String> after = versions("steady");
    after.remove("Pod/" + poked);
    before.remove("Pod/" + poked);
    assertThat(after).as("resource versions of the job and everything it owns").isEqualTo(before);

    // server-side apply of the same manifest again changes nothing
    String rv = jobs.get("steady").getMetadata().getResourceVersion();
    jobs.apply(yaml, "--server-side", "--field-manager=e2e-user");
    assertThat(jobs.get("steady").getMetadata().getResourceVersion()).isEqualTo(rv);

    // the operator wrote status (and only status) with server-side apply under its own field manager
    List<ManagedFieldsEntry> managers = jobs.get("steady").getMetadata().getManagedFields();
    assertThat(managers).anySatisfy(m -> {
      assertThat(m.getManager()).isEqualTo("ballast-operator");
      assertThat(m.getOperation()).isEqualTo("Apply");
      assertThat(m.getSubresource()).isEqualTo("status");
    });
    assertThat(managers).filteredOn(m -> "ballast-operator".equals(m.getManager()))
        .allSatisfy(m -> assertThat(m.getSubresource()).isEqualTo("status"));
  }

  @Test
  void suspendingReleasesTheGpusAndResumingAdmitsANewWorld() {
    jobs.apply(manifest("pausable", null, 0));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("pausable")).isEqualTo("Running"));
    env.kubectl("patch", "tj", "pausable", "-n", jobs.namespace(), "--type=merge", "-p", "{\"spec\":{\"suspend\":true}}").ok();
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(jobs.phase("pausable")).isEqualTo("Suspended");
      assertThat(jobs.workers("pausable")).isEmpty();
    });
    assertThat(argo.of(jobs.get("pausable")).status()).as("Argo CD health").isEqualTo("Suspended");
    assertThat(flux.of(jobs.get("pausable")).status()).as("Flux health: kstatus reads Ready=False")
        .isEqualTo("InProgress");
    assertThat(flux.withExprs(jobs.get("pausable")).status()).as("Flux health, the chart's CEL").isEqualTo("Current");
    env.kubectl("patch", "tj", "pausable", "-n", jobs.namespace(), "--type=merge", "-p", "{\"spec\":{\"suspend\":false}}").ok();
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(jobs.phase("pausable")).isEqualTo("Running");
      @SuppressWarnings("unchecked")
      Map<String, Object> world = (Map<String, Object>) jobs.status("pausable").get("world");
      assertThat(((Number) world.get("generation")).longValue()).as("a new world generation").isEqualTo(2L);
    });
    env.kubectl("delete", "tj", "pausable", "-n", jobs.namespace(), "--wait=false").ok();
  }

  /**
   * Pausing reconciliation (annotation ballast.dev/pause-reconciliation, as Strimzi's): a paused running job whose
   * worker is deleted is left as it is (no restart, no new world), says so in status, in the REASON column and to
   * Argo CD (Suspended); removing the annotation alone wakes the operator, which then replaces the lost worker's world
   * (a counted restart).
   */
  @Test
  void aPausedJobIsLeftAloneUntilTheAnnotationIsRemoved() {
    jobs.apply(manifest("maintained", null, 0));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("maintained")).isEqualTo("Running"));
    env.kubectl("annotate", "tj", "maintained", "-n", jobs.namespace(), "ballast.dev/pause-reconciliation=true").ok();
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(jobs.condition("maintained", "ReconciliationPaused"))
          .hasValueSatisfying(c -> assertThat(c.get("status")).isEqualTo("True"));
      assertThat(jobs.status("maintained").get("reason")).as("the REASON column").isEqualTo("ReconciliationPaused");
    });
    assertThat(argo.of(jobs.get("maintained"))).as("Argo CD health").satisfies(h -> {
      assertThat(h.status()).isEqualTo("Suspended");
      assertThat(h.message()).contains("ballast.dev/pause-reconciliation");
    });

    env.kubectl("delete", "pod", "maintained-g1-w0", "-n", jobs.namespace()).ok();
    await().during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
      assertThat(jobs.workers("maintained")).extracting(p -> p.getMetadata().getName())
          .as("the lost worker is not replaced while paused").containsExactly("maintained-g1-w1");
      assertThat(jobs.worldGeneration("maintained")).isEqualTo(1);
      assertThat(jobs.restarts("maintained")).isZero();
    });

    env.kubectl("annotate", "tj", "maintained", "-n", jobs.namespace(), "ballast.dev/pause-reconciliation-").ok();
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(jobs.condition("maintained", "ReconciliationPaused")).hasValueSatisfying(c -> {
        assertThat(c.get("status")).isEqualTo("False");
        assertThat(c.get("reason")).isEqualTo("Resumed");
      });
      assertThat(jobs.worldGeneration("maintained")).as("the lost worker's world is replaced").isEqualTo(2);
      assertThat(jobs.phase("maintained")).isEqualTo("Running");
    });
    assertThat(jobs.restarts("maintained")).isEqualTo(1);
    assertThat(env.kubectl("get", "events", "-n", jobs.namespace(), "--field-selector",
        "involvedObject.name=maintained", "-o", "jsonpath={.items[*].reason}").ok().stdout())
        .contains("ReconciliationPaused", "ReconciliationResumed");
    env.kubectl("delete", "tj", "maintained", "-n", jobs.namespace(), "--wait=false").ok();
  }

  /**
   * A worker whose container cannot be created (its environment names a Secret that does not exist yet): the kubelet
   * keeps it Pending with CreateContainerConfigError, and the job says so in Ready, the REASON column, and to Argo CD
   * and Flux, instead of "1 of 2 workers are running" with no why. Creating the Secret lets the world run.
   */
  @Test
  void aWorkerThatCannotStartIsNamedWithTheKubeletsReasonUntilItRuns() {
    jobs.apply(Jobs.manifest("unconfigured", 2, 2,
        "[{name: API_TOKEN, valueFrom: {secretKeyRef: {name: trainer-credentials, key: token}}}]"));
    String why = "container trainer: CreateContainerConfigError (secret \"trainer-credentials\" not found)";
    await().atMost(WAIT).untilAsserted(() -> {
      assertThat(jobs.condition("unconfigured", "Ready")).hasValueSatisfying(c -> {
        assertThat(c.get("reason")).isEqualTo("ContainerWaiting");
        assertThat((String) c.get("message")).startsWith("0 of 2 workers are running; pod unconfigured-g1-w")
            .contains(why);
      });
      assertThat(jobs.status("unconfigured").get("reason")).as("the REASON column").isEqualTo("ContainerWaiting");
    });
    await().atMost(WAIT).untilAsserted(() -> assertThat(List.of(env.kubectl("get", "events",
        "-n", jobs.namespace(), "--field-selector", "involvedObject.name=unconfigured,reason=ContainerWaiting",
        "-o", "jsonpath={range .items[*]}{.message}{'\\n'}{end}").ok().stdout().strip().split("\n")))
        .as("one Warning event when the workers start waiting").singleElement()
        .satisfies(m -> assertThat(m).contains(why)));
    assertThat(argo.of(jobs.get("unconfigured"))).as("Argo CD health").satisfies(h -> {
      assertThat(h.status()).isEqualTo("Progressing");
      assertThat(h.message()).contains(why);
    });
    assertThat(flux.of(jobs.get("unconfigured"))).as("Flux health").satisfies(h -> {
      assertThat(h.status()).isEqualTo("InProgress");
      assertThat(h.message()).contains(why);
    });

    env.kubectl("create", "secret", "generic", "trainer-credentials", "--from-literal=token=t0ken", "-n",
        jobs.namespace()).ok();
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("unconfigured")).isEqualTo("Running"));
    assertThat(jobs.condition("unconfigured", "Ready")).hasValueSatisfying(c ->
        assertThat(c.get("reason")).isEqualTo("AllWorkersRunning"));
    assertThat(jobs.restarts("unconfigured")).as("waiting is no failure").isZero();
    env.kubectl("delete", "tj", "unconfigured", "-n", jobs.namespace(), "--wait=false").ok();
  }

  /** The same with recovery.startupTimeoutSeconds: the world is given up, and with no restart left the job fails. */
  @Test
  void aWorldThatDoesNotStartWithinItsStartupTimeoutFailsTheJobWhenNoRestartIsLeft() {
    jobs.apply(Jobs.manifest("stuck", 2, 2,
        "[{name: API_TOKEN, valueFrom: {secretKeyRef: {name: never-created, key: token}}}]")
        + "  restartLimit: 0\n  recovery: {startupTimeoutSeconds: 10}\n");
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("stuck")).isEqualTo("Failed"));
    assertThat(jobs.condition("stuck", "Failed")).hasValueSatisfying(c -> {
      assertThat(c.get("reason")).isEqualTo("RestartLimitExceeded");
      assertThat((String) c.get("message")).contains("last failure (StartupTimeout): the workers of world 1 did not"
          + " all run within 10s of its commit")
          .contains("CreateContainerConfigError (secret \"never-created\" not found)");
    });
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.workers("stuck")).isEmpty());
    assertThat(argo.of(jobs.get("stuck")).status()).as("Argo CD health").isEqualTo("Degraded");
  }

  @Test
  void deletingAJobGarbageCollectsEverythingItOwned() {
    jobs.apply(manifest("collected", null, 0));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("collected")).isEqualTo("Running"));
    String secret = "Secret/collected-sidecar-auth-" + jobs.get("collected").getMetadata().getUid().replace("-", "")
        .substring(0, 12);
    assertThat(versions("collected")).containsKeys("Service/collected", "ConfigMap/collected-world",
        "Deployment/collected-balancer", secret, "RoleBinding/collected-balancer",
        "ServiceAccount/collected-balancer", "Pod/collected-g1-w0", "Pod/collected-g1-w1");

    env.kubectl("delete", "tj", "collected", "-n", jobs.namespace(), "--wait=false").ok();
    await().atMost(WAIT).untilAsserted(() -> assertThat(versions("collected")).isEmpty());
  }

  /**
   * Foreground deletion, as Argo CD prunes by default: the job stays, marked for deletion, until the garbage collector
   * has deleted what it owns. Its workers stopping then must not look like a lost world to the operator: no next world
   * is created, and everything goes.
   */
  @Test
  void deletingAJobInTheForegroundStartsNoNextWorldAndCollectsEverything() {
    jobs.apply(manifest("pruned", null, 0));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("pruned")).isEqualTo("Running"));
    env.kubectl("delete", "tj", "pruned", "-n", jobs.namespace(), "--cascade=foreground", "--wait=false").ok();
    java.util.Set<String> seen = new java.util.TreeSet<>();
    await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
      Map<String, String> left = versions("pruned");
      left.keySet().stream().filter(k -> k.startsWith("Pod/pruned-g")).forEach(seen::add);
      assertThat(left).isEmpty();
    });
    assertThat(seen).as("only world 1's workers ever existed").allMatch(k -> k.startsWith("Pod/pruned-g1-"));
  }

  /** kind/name → resourceVersion of the job and of every object labelled with it. */
  Map<String, String> versions(String job) {
    var c = env.admin();
    String ns = jobs.namespace();
    Map<String, String> out = new TreeMap<>();
    List<HasMetadata> all = new ArrayList<>();
    all.addAll(c.pods().inNamespace(ns).withLabel("ballast.dev/job", job).list().getItems());
    all.addAll(c.services().inNamespace(ns).withLabel("ballast.dev/job", job).list().getItems());
    all.addAll(c.configMaps().inNamespace(ns).withLabel("ballast.dev/job", job).list().getItems());
    all.addAll(c.secrets().inNamespace(ns).withLabel("ballast.dev/job", job).list().getItems());
    all.addAll(c.serviceAccounts().inNamespace(ns).withLabel("ballast.dev/job", job).list().getItems());
    all.addAll(c.apps().deployments().inNamespace(ns).withLabel("ballast.dev/job", job).list().getItems());
    all.addAll(c.rbac().roleBindings().inNamespace(ns).withLabel("ballast.dev/job", job).list().getItems());
    var tj = jobs.get(job);
    if (tj != null) all.add(tj);
    for (HasMetadata r : all) out.put(r.getKind() + "/" + r.getMetadata().getName(), r.getMetadata().getResourceVersion());
    return out;
  }
}
