package dev.ballast.e2e.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.contracts.json.Json;
import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.Browser;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.Jobs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/**
 * The operator's index of jobs in a real browser (headless Debian chromium), served by the real operator; a person
 * signed in with a ServiceAccount token sees only the jobs the real API server lets them get (docs/dashboard.md).
 */
@E2eTest
class IndexPageTest {
  static final Duration WAIT = Duration.ofMinutes(2);
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  final BallastEnvironment env;
  final Jobs mine;
  final Jobs theirs;

  IndexPageTest(BallastEnvironment env) {
    this.env = env;
    this.mine = new Jobs(env, IndexPageTest.class);
    this.theirs = new Jobs(env, mine.namespace() + "-other");
  }

  static HttpResponse<String> get(URI uri, String token) throws Exception {
    var request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
    if (token != null) request.header("Authorization", "Bearer " + token);
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> rows(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return (List<Map<String, Object>>) ((Map<String, Object>) Json.parse(response.body())).get("jobs");
  }

  @Test
  void aPersonSeesOnlyTheJobsTheyMayGetAndWhyAWaitingJobWaits() throws Exception {
    // more GPUs than the cluster has: admission says why it waits
    mine.apply(Jobs.manifest("too-big", 64, 64, 8, 16, "env: []"));
    // admitted, but its workers cannot start: the kubelet's reason is why it waits
    mine.apply(Jobs.manifest("unconfigured", 2, 2,
        "[{name: API_TOKEN, valueFrom: {secretKeyRef: {name: index-credentials, key: token}}}]"));
    theirs.apply(Jobs.manifest("elsewhere", 2, 2, "[]"));
    String ns = mine.namespace();
    env.kubectl("create", "serviceaccount", "viewer", "-n", ns).ok();
    env.kubectl("create", "role", "viewer", "--verb=get", "--resource=trainingjobs.ballast.dev",
        "--resource-name=too-big", "--resource-name=unconfigured", "-n", ns).ok();
    env.kubectl("create", "rolebinding", "viewer", "--role=viewer", "--serviceaccount=" + ns + ":viewer", "-n", ns).ok();
    String token = env.kubectl("create", "token", "viewer", "-n", ns).ok().stdout().trim();
    await().atMost(WAIT).untilAsserted(() -> assertThat(mine.condition("too-big", "Admitted"))
        .hasValueSatisfying(c -> assertThat(c).containsEntry("status", "False")));
    await().atMost(WAIT).untilAsserted(() -> assertThat(theirs.status("elsewhere")).isNotEmpty());
    await().atMost(WAIT).untilAsserted(() -> assertThat(whyWaiting("unconfigured"))
        .startsWith("ContainerWaiting: 0 of 2 workers are running; pod unconfigured-g1-w")
        .contains("container trainer: CreateContainerConfigError"
        + " (secret \"index-credentials\" not found)"));

    URI data = env.operatorUri("/dashboard/api/jobs");
    assertThat(get(data, null).statusCode()).isEqualTo(401);
    assertThat(get(data, "not-a-token").statusCode()).isEqualTo(401);
    // one who may list the other namespace's jobs sees them by that one review, and nothing of the first namespace
    String other = theirs.namespace();
    env.kubectl("create", "serviceaccount", "lister", "-n", other).ok();
    env.kubectl("create", "role", "lister", "--verb=list", "--resource=trainingjobs.ballast.dev", "-n", other).ok();
    env.kubectl("create", "rolebinding", "lister", "--role=lister", "--serviceaccount=" + other + ":lister", "-n", other)
        .ok();
    String lister = env.kubectl("create", "token", "lister", "-n", other).ok().stdout().trim();
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(rows(get(data, lister)))
        .extracting(r -> r.get("namespace") + "/" + r.get("name")).containsExactly(other + "/elsewhere"));
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      List<Map<String, Object>> rows = rows(get(data, token));
      assertThat(rows).extracting(r -> r.get("namespace") + "/" + r.get("name"))
          .containsExactly(ns + "/too-big", ns + "/unconfigured");
      assertThat(rows.get(0)).containsEntry("phase", "Pending").containsEntry("waiting", whyWaiting("too-big"))
          .containsEntry("open", "bin/ballast dashboard too-big -n " + ns);
      assertThat(rows.get(1)).containsEntry("phase", "Admitted").containsEntry("waiting", whyWaiting("unconfigured"));
    });

    try (Browser browser = new Browser()) {
      var driver = browser.driver();
      driver.get(env.operatorUri("/dashboard/").toString());
      assertThat(driver.findElement(By.id("sign-in")).isDisplayed()).as("the sign-in form").isTrue();
      DashboardTest.signIn(browser, token);
      await().atMost(Duration.ofSeconds(20)).until(() -> renders(browser) >= 1);
      driver.executeScript("window.notReloaded = true");
      await().atMost(Duration.ofSeconds(10)).until(() -> renders(browser) >= 2); // polled again, in place
      assertThat(driver.findElement(By.id("viewer")).getText())
          .isEqualTo("signed in as system:serviceaccount:" + ns + ":viewer");
      var rows = driver.findElements(By.cssSelector("#jobs tbody tr"));
      assertThat(rows).hasSize(2);
      assertThat(rows.get(0).getText()).contains(ns + "/too-big").contains("Pending").doesNotContain("elsewhere");
      assertThat(rows.get(1).getText()).contains(ns + "/unconfigured").contains("Admitted");
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
          driver.findElements(By.cssSelector("#jobs tbody td.waiting"))).extracting(e -> e.getText())
          .containsExactly(whyWaiting("too-big"), whyWaiting("unconfigured")));
      assertThat(driver.executeScript("return window.notReloaded === true")).as("the same document").isEqualTo(true);
      assertThat(driver.executeScript("const t = document.getElementById('jobs');"
          + " return t.scrollWidth <= t.parentElement.clientWidth")).as("the table stays inside its card")
          .isEqualTo(true);
      assertThat(browser.consoleErrors()).as("console errors").isEmpty();
      browser.screenshot(Path.of("target/dashboard-index.png"), env.root().resolve("docs/dashboard-index.png"));
    }
    mine.deleteAll();
    theirs.deleteAll();
  }

  /**
   * Why a job waits as the index shows it: its first False condition of Admitted and Ready (the numbers change as
   * other jobs come and go).
   */
  String whyWaiting(String job) {
    Map<String, Object> c = mine.condition(job, "Admitted").filter(a -> "False".equals(a.get("status")))
        .or(() -> mine.condition(job, "Ready")).orElseThrow();
    return c.get("reason") + ": " + c.get("message");
  }

  static long renders(Browser browser) {
    return ((Number) browser.driver().executeScript("return window.ballastIndex.renders")).longValue();
  }
}
