package dev.ballast.e2e.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.GpuNodes;
import dev.ballast.e2e.support.Jobs;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Recovery on the real control plane (docs/elastic.md): a worker whose trainer process is killed restarts
 * the world (counted in status.restarts); a node that goes NotReady has its workers replaced elsewhere while
 * its pods stay Terminating (never force-deleted while the node might still run them), until it is tainted
 * out-of-service; a job that keeps failing stops at restartLimit, Failed with the reason; a balancer whose node is
 * deleted or NotReady is replaced when the job counts the node lost. The world invariants are watched throughout.
 */
@E2eTest
@Tag("elastic") // the elastic scenarios alone: -Dballast.e2e.groups=elastic (e2e/README.md)
class RecoveryTest extends ElasticScenario {
  RecoveryTest(BallastEnvironment env) {
    super(env);
  }

  Pod workerOn(String job, String node) {
    return jobs.workers(job).stream().filter(p -> node.equals(p.getSpec().getNodeName())).findFirst().orElseThrow();
  }

  @Test
  void aKilledTrainerProcessRestartsTheWorldAndCountsIt() {
    pool = new GpuNodes(env, "recover-kill", 22);
    pool.add(2);
    jobs.apply(Jobs.elasticManifest("killed", 2, 2, pool, "", "recovery: {backoffSeconds: 1}"));
    awaitWorld("killed", 1, 2);
    Pod victim = jobs.workers("killed").get(0);

    env.kubelet().kill(jobs.namespace(), victim.getMetadata().getName(), "trainer"); // SIGKILL: exit 137, retryable
    awaitWorld("killed", 2, 2);
    assertThat(jobs.restarts("killed")).isEqualTo(1);
    assertThat(jobs.workers("killed")).as("the new world's pods are all of generation 2")
        .allSatisfy(p -> assertThat(p.getMetadata().getName()).doesNotContain("-g1-"));
    assertThat(invariants.violations()).isEmpty();
  }

  @Test
  void aNotReadyNodesWorkersAreReplacedWhileItsPodsStayTerminatingUntilItIsOutOfService() {
    pool = new GpuNodes(env, "recover-notready", 23);
    pool.add(3);
    jobs.apply(Jobs.elasticManifest("partitioned", 2, 2, pool, "",
        "recovery: {backoffSeconds: 1, nodeLostAfterSeconds: 5}"));
    awaitWorld("partitioned", 1, 2);
    String lost = jobs.worldNodes("partitioned").get(1);
    String stuck = workerOn("partitioned", lost).getMetadata().getName();

    pool.notReady(lost);
    assertThat(awaitWorld("partitioned", 2, 2)).doesNotContain(lost);
    Pod old = env.admin().pods().inNamespace(jobs.namespace()).withName(stuck).get();
    assertThat(old).as("the pod on the NotReady node is not force-deleted while the node may still run it").isNotNull();
    assertThat(old.getMetadata().getDeletionTimestamp()).as("it is being deleted (stuck Terminating)").isNotNull();

    pool.outOfService(lost);
    await().atMost(WAIT).untilAsserted(() ->
        assertThat(env.admin().pods().inNamespace(jobs.namespace()).withName(stuck).get())
            .as("out of service: the stuck pod is removed").isNull());
    assertThat(jobs.restarts("partitioned")).isEqualTo(1);
    assertThat(invariants.violations()).isEmpty();
  }

  @Test
  void exhaustingRestartLimitFailsTheJobWithTheReason() {
    pool = new GpuNodes(env, "recover-limit", 24);
    pool.add(2);
    // every world's trainers exit 75 ("retry me") after 2 s
    jobs.apply(Jobs.elasticManifest("flaky", 2, 2, pool,
        "{name: BALLAST_TEST_RUN_SECONDS, value: \"2\"}, {name: BALLAST_TEST_EXIT_CODE, value: \"75\"}",
        "restartLimit: 2\nrecovery: {backoffSeconds: 1}"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("flaky")).isEqualTo("Failed"));
    assertThat(jobs.restarts("flaky")).isEqualTo(2);
    assertThat(jobs.condition("flaky", "Failed")).hasValueSatisfying(c -> {
      assertThat(c.get("reason")).isEqualTo("RestartLimitExceeded");
      assertThat((String) c.get("message")).contains("restartLimit (2)");
    });
    assertThat(jobs.worldGeneration("flaky")).as("the first world and two restarts").isEqualTo(3);
    assertThat(invariants.violations()).isEmpty();
  }

  /**
   * The balancer's node is lost while the world runs on other nodes. Deleted: the operator force-deletes the balancer
   * pod (event ForceDeleted), so its Deployment starts a new one at once, not when the pod garbage collector gets to
   * it (about 40 s). NotReady: the pod tolerates the node for {@code nodeLostAfterSeconds} only, not Kubernetes'
   * default 300 s, and is evicted and replaced then. To know where the balancer goes, every node but the workers'
   * pool and three nodes open to every job is cordoned while the test runs.
   */
  @Test
  void aBalancerOnALostNodeIsReplacedWhenTheJobCountsTheNodeLost() {
    // racks no other test uses: the kubelet never again runs pods on a node name it saw go down
    pool = new GpuNodes(env, "recover-balancer", 27);
    pool.add(2);
    GpuNodes room = GpuNodes.shared(env, 28);
    List<String> roomNodes = room.add(3);
    List<String> keep = new ArrayList<>(roomNodes);
    keep.addAll(pool.nodes());
    List<String> cordoned = cordonAllBut(keep);
    try {
      jobs.apply(Jobs.elasticManifest("steered", 2, 2, pool, "",
          "recovery: {backoffSeconds: 1, nodeLostAfterSeconds: 5}"));
      awaitWorld("steered", 1, 2);
      Pod first = runningBalancer("steered", null);
      assertThat(roomNodes).contains(first.getSpec().getNodeName());

      Instant deleted = Instant.now();
      room.delete(first.getSpec().getNodeName());
      Pod second = runningBalancer("steered", first);
      assertThat(Duration.between(deleted, Instant.now())).as("replaced before the pod garbage collector's 40 s")
          .isLessThan(Duration.ofSeconds(30));
      assertThat(env.kubectl("get", "events", "-n", jobs.namespace(), "--field-selector", "reason=ForceDeleted",
          "-o", "jsonpath={.items[*].message}").ok().stdout()).contains(first.getMetadata().getName());

      Instant lost = room.notReady(second.getSpec().getNodeName());
      Pod third = runningBalancer("steered", second);
      assertThat(Duration.between(lost, Instant.now())).as("evicted after nodeLostAfterSeconds, not after 300 s")
          .isLessThan(Duration.ofSeconds(90));
      assertThat(third.getSpec().getNodeName()).isNotIn(first.getSpec().getNodeName(), second.getSpec().getNodeName());
      Pod evicted = env.admin().pods().inNamespace(jobs.namespace()).withName(second.getMetadata().getName()).get();
      assertThat(evicted).as("evicted, not force-deleted: the NotReady node may still run it").isNotNull();
      assertThat(evicted.getMetadata().getDeletionTimestamp()).isNotNull();
      assertThat(jobs.worldGeneration("steered")).as("the world on other nodes runs on").isEqualTo(1);
      assertThat(invariants.violations()).isEmpty();
    } finally {
      cordoned.forEach(n -> setUnschedulable(n, false));
      roomNodes.forEach(n -> env.kubectl("delete", "node", n, "--ignore-not-found", "--wait=false").ok());
    }
  }

  /** Cordons every schedulable node but {@code keep}; returns those it cordoned. */
  List<String> cordonAllBut(List<String> keep) {
    List<String> cordoned = new ArrayList<>();
    for (Node n : env.admin().nodes().list().getItems()) {
      String name = n.getMetadata().getName();
      if (keep.contains(name) || Boolean.TRUE.equals(n.getSpec().getUnschedulable())) continue;
      setUnschedulable(name, true);
      cordoned.add(name);
    }
    return cordoned;
  }

  void setUnschedulable(String node, boolean unschedulable) {
    env.kubectl(unschedulable ? "cordon" : "uncordon", node).ok();
  }

  /** Waits for the job's one balancer pod, Running and not {@code replaced} (null: any); returns it. */
  Pod runningBalancer(String job, Pod replaced) {
    Pod[] found = new Pod[1];
    await().atMost(WAIT).untilAsserted(() -> {
      List<Pod> live = jobs.balancers(job).stream()
          .filter(Jobs::running)
          .filter(p -> replaced == null || !p.getMetadata().getName().equals(replaced.getMetadata().getName()))
          .toList();
      assertThat(live).hasSize(1);
      found[0] = live.get(0);
    });
    return found[0];
  }
}
