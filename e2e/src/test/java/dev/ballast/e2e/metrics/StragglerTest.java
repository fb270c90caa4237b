package dev.ballast.e2e.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.Jobs;
import io.fabric8.kubernetes.api.model.Pod;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A GPU rank that runs persistently slower than its peers is flagged by the real balancer (metric) and the real
 * operator (the Stragglers condition naming the rank and its pod, an event), on the real control plane
 * (docs/elastic.md, "Stragglers").
 */
@E2eTest
class StragglerTest {
  static final Duration WAIT = Duration.ofMinutes(3);
  static final int SLOW_RANK = 5; // pod 1's second GPU: ranks are node rank x 4 + local GPU
  // The slow flag's own words (a silent rank is "stopped reporting" under the same condition, which names the rank and
  // its pod too).
  static final String FLAGGED_SLOW = "GPU rank " + SLOW_RANK + " (pod slow-g1-w1) runs slower than its peers";
  final BallastEnvironment env;
  final Jobs jobs;

  StragglerTest(BallastEnvironment env) {
    this.env = env;
    this.jobs = new Jobs(env, StragglerTest.class);
  }

  @Test
  void aPersistentlySlowRankIsFlaggedByMetricConditionAndEvent() throws Exception {
    // 2 pods x 4 GPUs on a shared step clock (steps complete); rank 5 reports 4 times its pod's compute time
    jobs.apply(Jobs.reportingManifestWithSlowRank("slow", 4, 16, 100, SLOW_RANK, 4));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("slow")).isEqualTo("Running"));

    // 3 slow windows of 8 complete steps: about 2.4 s of 100 ms steps once both pods report
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.condition("slow", "Stragglers"))
        .hasValueSatisfying(c -> {
          assertThat(c).containsEntry("status", "True");
          assertThat((String) c.get("message")).contains(FLAGGED_SLOW);
        }));
    assertThat(jobs.status("slow")).containsEntry("reason", "Stragglers");
    assertThat(env.kubectl("get", "events", "-n", jobs.namespace(), "--field-selector",
        "reason=Stragglers,involvedObject.name=slow", "-o", "jsonpath={.items[*].message}").ok().stdout())
        .contains(FLAGGED_SLOW);

    Pod balancer = env.admin().pods().inNamespace(jobs.namespace()).withLabel("ballast.dev/job", "slow")
        .withLabel("ballast.dev/role", "balancer").list().getItems().stream()
        .filter(p -> "Running".equals(p.getStatus().getPhase())).findFirst().orElseThrow();
    String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://" + balancer.getStatus().getPodIP() + ":8473/q/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    var slow = Pattern.compile("(?m)^ballast_balancer_ranks_slow\\{[^}]*job=\"slow\"[^}]*\\} (\\S+)$").matcher(metrics);
    assertThat(slow.find()).as("ballast_balancer_ranks_slow in%n%s", metrics).isTrue();
    assertThat(Double.parseDouble(slow.group(1))).isGreaterThanOrEqualTo(1);
    jobs.deleteAll();
  }
}
