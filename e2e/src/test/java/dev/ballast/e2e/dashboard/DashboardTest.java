package dev.ballast.e2e.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.Browser;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.Jobs;
import io.fabric8.kubernetes.api.model.Pod;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/**
 * The job's page in a real browser (headless Debian chromium), served by the real balancer of a 60-layer x 256-expert
 * job on the real control plane; people sign in with ServiceAccount tokens the real API server checks
 * (docs/dashboard.md).
 */
@E2eTest
class DashboardTest {
  static final Duration WAIT = Duration.ofMinutes(3);
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  final BallastEnvironment env;
  final Jobs jobs;

  DashboardTest(BallastEnvironment env) {
    this.env = env;
    this.jobs = new Jobs(env, DashboardTest.class);
  }

  /** A ServiceAccount and a token of it; {@code mayGet}: bound to a Role that may get TrainingJobs here. */
  String person(String name, boolean mayGet) {
    String ns = jobs.namespace();
    env.kubectl("create", "serviceaccount", name, "-n", ns).ok();
    if (mayGet) {
      env.kubectl("create", "role", name, "--verb=get", "--resource=trainingjobs.ballast.dev", "-n", ns).ok();
      env.kubectl("create", "rolebinding", name, "--role=" + name, "--serviceaccount=" + ns + ":" + name, "-n", ns).ok();
    }
    return env.kubectl("create", "token", name, "-n", ns).ok().stdout().trim();
  }

  @SuppressWarnings("unchecked")
  Map<String, Object> balancerStatus(String job) {
    return (Map<String, Object>) jobs.status(job).get("balancer");
  }

  static int get(String url, String token) throws Exception {
    var request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
    if (token != null) request.header("Authorization", "Bearer " + token);
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  @Test
  void peopleWhoMayGetTheJobSeeItsLivePageOthersAreRefused() throws Exception {
    // two workers of 4 GPUs, one expert group of 8, the heatmap's size of the performance target: 60 x 256
    // the stand-ins step on a shared clock, so steps complete and the measured charts have data
    jobs.apply(Jobs.reportingManifestOnSharedClock("viewed", 60, 256, 8, 200, ""));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("viewed")).isEqualTo("Running"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(balancerStatus("viewed")).isNotNull()
        .extractingByKey("planVersion").asString().isNotEmpty().doesNotEndWith(".0"));
    Pod balancer = env.admin().pods().inNamespace(jobs.namespace()).withLabel("ballast.dev/job", "viewed")
        .withLabel("ballast.dev/role", "balancer").list().getItems().stream()
        .filter(p -> "Running".equals(p.getStatus().getPhase())).findFirst().orElseThrow();
    String page = "http://" + balancer.getStatus().getPodIP() + ":8472/dashboard/";
    String allowed = person("viewer", true);
    String refused = person("outsider", false);

    // the data: 401 without a token or with one the API server refuses, 403 without get on the job
    assertThat(get(page + "api/job", null)).isEqualTo(401);
    assertThat(get(page + "api/job", "not-a-token")).isEqualTo(401);
    assertThat(get(page + "api/job", refused)).isEqualTo(403);
    assertThat(get(page + "api/job", allowed)).isEqualTo(200);

    try (Browser browser = new Browser()) {
      var driver = browser.driver();
      driver.get(page);
      assertThat(driver.findElement(By.id("sign-in")).isDisplayed()).as("the sign-in form").isTrue();
      signIn(browser, refused);
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(driver.findElement(By.id("auth-message"))
          .getText()).contains("system:serviceaccount:" + jobs.namespace() + ":outsider may not get"
              + " trainingjobs.ballast.dev/viewed"));
      assertThat(driver.findElement(By.id("page")).isDisplayed()).isFalse();
      browser.consoleErrors(); // the refused request's 403 is logged as an error; drained here

      signIn(browser, allowed);
      await().atMost(Duration.ofSeconds(20)).until(() -> renders(browser) >= 1);
      assertThat(driver.findElement(By.id("viewer")).getText())
          .isEqualTo("signed in as system:serviceaccount:" + jobs.namespace() + ":viewer");

      // a fresh load with the token already in the tab: the 60 x 256 heatmap drawn from navigation start
      driver.navigate().refresh();
      await().atMost(Duration.ofSeconds(10)).until(() -> renders(browser) >= 1);
      double firstRender = ((Number) driver.executeScript("return window.ballastDashboard.firstRenderedAt")).doubleValue();
      double drawing = ((Number) driver.executeScript("return window.ballastDashboard.lastRenderMillis")).doubleValue();
      Object heatmap = driver.executeScript(
          "const c = document.getElementById('heatmap'); return c.width + 'x' + c.height");
      assertThat(heatmap).as("experts x layers").isEqualTo("256x60");
      Files.createDirectories(Path.of("target"));
      Files.writeString(Path.of("target/dashboard-render.txt"), "heatmap 60x256: first render %.0f ms after navigation"
          .formatted(firstRender) + " start, drawing %.1f ms%n".formatted(drawing));
      assertThat(firstRender).as("ms from navigation start to the page drawn").isLessThanOrEqualTo(1000);

      // the job's own numbers, as status.balancer has them
      driver.executeScript("window.notReloaded = true");
      await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> { // both change with every plan (about 4 s)
        Map<String, Object> s = balancerStatus("viewed");
        assertThat(driver.findElement(By.id("plan-version")).getText()).isEqualTo(s.get("planVersion"));
        assertThat(driver.findElement(By.id("world-generation")).getText())
            .isEqualTo(String.valueOf(Jobs.worldGeneration(jobs.status("viewed"))));
        assertThat(driver.findElement(By.id("gpus")).getText()).isEqualTo("8");
        assertThat(driver.findElement(By.id("sidecars")).getText()).isEqualTo("2");
        assertThat(driver.findElement(By.id("placement-plan")).getText()).as("the placement view's plan")
            .isEqualTo(s.get("planVersion"));
      });
      assertThat(driver.findElements(By.cssSelector("#world tbody tr"))).hasSize(2);

      // the stand-in trainers' steps complete (a shared step clock), so the measured charts have the job's numbers
      await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
        assertThat(script(browser, "return window.ballastDashboard.gpuChart && window.ballastDashboard.gpuChart.bars"))
            .as("bars of the per-GPU chart").isEqualTo(8L);
        assertThat(script(browser, "return window.ballastDashboard.historyChart !== null")).isEqualTo(true);
        assertThat(script(browser, "return window.ballastDashboard.stepChart !== null")).isEqualTo(true);
      });
      // per GPU: every token of the last measured step, under the static layout and under the plan; the stand-ins
      // report 8192 x 8 tokens per GPU and layer (+-10% noise): 8 GPUs x 60 layers
      for (String layout : new String[] {"before", "after"}) {
        double tokens = ((Number) script(browser,
            "return window.ballastDashboard.latest.gpus." + layout + ".reduce((a, b) => a + b, 0)")).doubleValue();
        assertThat(tokens).as("tokens per step, %s", layout).isBetween(0.9 * 8 * 60 * 65536, 1.1 * 8 * 60 * 65536);
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> measured = (Map<String, Object>) await().atMost(Duration.ofSeconds(60))
          .until(() -> balancerStatus("viewed").get("measured"), m -> m != null);
      assertThat(((Number) measured.get("imbalanceBefore")).doubleValue()).as("status.balancer.measured %s", measured)
          .isGreaterThan(1.0);
      @SuppressWarnings("unchecked")
      Map<String, Object> last = (Map<String, Object>) script(browser,
          "const h = window.ballastDashboard.latest.history; return h[h.length - 1]");
      double stepSeconds = ((Number) (last.get("stepAfter") != null ? last.get("stepAfter") : last.get("stepBefore")))
          .doubleValue();
      assertThat(stepSeconds).as("the slowest rank's step on the stand-ins' 200 ms clock, %s", last)
          .isBetween(0.15, 2.0);
      assertThat(driver.findElement(By.id("step-now")).getText()).as("the step-time chart's latest value")
          .matches("\\d+ ms step · \\d+ ms compute \\((plans|static)\\)");
      assertThat(driver.findElement(By.id("measured-now")).getText()).matches("\\d\\.\\d\\d static → .* plan");
      // where the experts live: the 8 GPUs of the two workers, every home expert of the chosen layer on its GPU
      assertThat(driver.findElements(By.cssSelector("#topology .gpu"))).hasSize(8);
      assertThat(driver.findElements(By.cssSelector("#topology .chip:not(.extra)"))).as("home experts").hasSize(256);
      long extras = ((Number) script(browser, "return window.ballastDashboard.placement.extras")).longValue();
      assertThat(driver.findElements(By.cssSelector("#topology .chip.extra"))).hasSize((int) extras);
      assertThat(extras).as("replicas of the chosen layer (the one with the most) under a skewed load").isPositive();

      // a newer plan adopted by every rank shows up without a reload
      String shown = driver.findElement(By.id("plan-version")).getText();
      await().atMost(Duration.ofMinutes(2)).untilAsserted(() -> {
        String now = driver.findElement(By.id("plan-version")).getText();
        assertThat(now).isNotEqualTo(shown).isEqualTo(balancerStatus("viewed").get("planVersion"));
        assertThat(driver.findElement(By.id("placement-plan")).getText()).isEqualTo(now);
      });
      assertThat(driver.executeScript("return window.notReloaded === true")).as("the same document").isEqualTo(true);
      assertThat(browser.consoleErrors()).as("console errors").isEmpty();
      browser.fullPageScreenshot(Path.of("target/dashboard-job.png"), env.root().resolve("docs/dashboard-job.png"));
    }
    env.kubectl("delete", "tj", "viewed", "-n", jobs.namespace(), "--wait=false").ok();
  }

  static Object script(Browser browser, String js) {
    return browser.driver().executeScript(js);
  }

  static long renders(Browser browser) {
    return ((Number) browser.driver().executeScript("return window.ballastDashboard.renders")).longValue();
  }

  static void signIn(Browser browser, String token) {
    var driver = browser.driver();
    var field = driver.findElement(By.id("token"));
    field.clear();
    // a token is ~1 kB: set it rather than type it key by key
    driver.executeScript("arguments[0].value = arguments[1]", field, token);
    driver.findElement(By.cssSelector("#sign-in-form button")).click();
  }
}
