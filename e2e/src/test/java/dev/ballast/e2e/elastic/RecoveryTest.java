package dev.ballast.e2e.elastic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.GpuNodes;
import dev.ballast.e2e.support.Jobs;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Recovery on the real control plane (docs/elastic.md): a worker whose trainer process is killed restarts
 * the world (counted in status.restarts); a node that goes NotReady has its workers replaced elsewhere while
 * its pods stay Terminating (never force-deleted while the node might still run them), until it is tainted
 * out-of-service; a job that keeps failing stops at restartLimit, Failed with the reason. The world
 * invariants are watched throughout.
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
}
