package dev.ballast.e2e.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.Jobs;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The {@code restricted} Pod Security Standard, enforced by the real API server's PodSecurity admission in a
 * namespace labelled for it: Ballast's own containers (sidecar, balancer) pass it, so a job whose trainer
 * complies runs end to end; a trainer template that violates it is refused by the API server, and the job's
 * status carries the server's message.
 */
@E2eTest
class PodSecurityTest {
  static final Duration WAIT = Duration.ofMinutes(3);
  /** A trainer container that passes the restricted level (the user's part of the worker pod). */
  static final String RESTRICTED_TRAINER = "securityContext: {runAsNonRoot: true, runAsUser: 1000, "
      + "allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}, seccompProfile: {type: RuntimeDefault}}";
  final Jobs jobs;

  PodSecurityTest(BallastEnvironment env) {
    this.jobs = new Jobs(env, PodSecurityTest.class);
    jobs.labelNamespace(Map.of("pod-security.kubernetes.io/enforce", "restricted",
        "pod-security.kubernetes.io/enforce-version", "latest"));
  }

  @Test
  void aCompliantJobRunsEndToEndInARestrictedNamespace() {
    jobs.apply(Jobs.manifest("compliant", 2, 2, 4, 8,
        "env: [{name: BALLAST_TEST_LOADS, value: \"4,16,100\"}], " + RESTRICTED_TRAINER)
        .replace("model: {moeLayers: 16, experts: 64, topK: 8}",
            "model: {moeLayers: 4, experts: 16, topK: 2}\n  balancer: {replanEverySteps: 20}"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("compliant")).isEqualTo("Running"));
    // the balancer's pod (created by its ReplicaSet, also under PodSecurity) plans, and every rank adopts a plan
    await().atMost(WAIT).untilAsserted(() -> {
      @SuppressWarnings("unchecked")
      Map<String, Object> part = (Map<String, Object>) jobs.status("compliant").get("balancer");
      assertThat(part).as("status.balancer").isNotNull();
      assertThat((String) part.get("planVersion")).as("the newest plan every rank adopted").isNotNull()
          .doesNotEndWith(".0");
    });
    jobs.deleteAll();
  }

  @Test
  void aTemplateThatViolatesTheNamespacesLevelIsReportedWithTheApiServersMessage() {
    jobs.apply(Jobs.manifest("privileged", 2, 2, "[]")); // the trainer sets no security context
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.condition("privileged", "Admitted")).hasValueSatisfying(c -> {
      assertThat(c.get("status")).isEqualTo("False");
      assertThat(c.get("reason")).isEqualTo("PodRefused");
      assertThat((String) c.get("message"))
          .contains("is forbidden: violates PodSecurity \"restricted:latest\"")
          .contains("container \"trainer\"")
          .doesNotContain("container \"ballast-sidecar\"");
    }));
    assertThat(jobs.phase("privileged")).isEqualTo("Pending");
    assertThat(jobs.workers("privileged")).as("no pod of a refused gang is kept").isEmpty();
    jobs.deleteAll();
  }
}
