package dev.ballast.e2e.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.Jobs;
import dev.ballast.e2e.support.PrometheusServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The chart's Grafana dashboard against a real Prometheus scraping the operator and a running job's balancer, as
 * the chart's ServiceMonitor and PodMonitor would (honor_labels: the series' own job and namespace labels win):
 * every query of every panel, read from the dashboard file with its variables set to this job, returns data (beside
 * it, a job that cannot fit gives the fleet's waiting panel its reason), and the variables' own queries offer this job.
 */
@E2eTest
class GrafanaDashboardTest {
  static final Duration WAIT = Duration.ofMinutes(3);
  static final String JOB = "graphed";
  static final String TOO_BIG = "waiting";
  static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((.+),\\s*(\\w+)\\)");
  /** Grafana's built-in interval variables, as Grafana would set them for a 2 s scrape over the last 10 minutes. */
  static final Map<String, String> BUILTINS = Map.of("__rate_interval", "20s", "__interval", "5s", "__range", "10m");

  final BallastEnvironment env;
  final Jobs jobs;

  GrafanaDashboardTest(BallastEnvironment env) {
    this.env = env;
    this.jobs = new Jobs(env, GrafanaDashboardTest.class);
  }

  @Test
  void everyPanelQueryReturnsDataForARunningJob() throws Exception {
    JsonNode dashboard = Serialization.jsonMapper().readTree(
        env.root().resolve("charts/ballast/dashboards/ballast.json").toFile());
    Map<String, String> panelQueries = panelQueries(dashboard);
    assertThat(panelQueries).as("the dashboard's queries").hasSizeGreaterThan(10);

    Path dir = env.logs().resolve("prometheus");
    Path balancers = dir.resolve("balancers.json");
    Files.createDirectories(dir);
    Files.writeString(balancers, "[]");
    // the operator names its port in its log once it listens (the suite may have started it just now)
    String operator = await().atMost(WAIT).ignoreExceptions().until(() -> env.operatorUri("/"), u -> true).getAuthority();
    // Started before the job exists, so that its admission and first plans fall inside the scraped history.
    try (var prometheus = PrometheusServer.start(env.bin("prometheus"), dir, """
        global: {scrape_interval: 2s, scrape_timeout: 2s}
        scrape_configs:
        - job_name: ballast-operator
          honor_labels: true
          metrics_path: /q/metrics
          static_configs: [{targets: ["%s"]}]
        - job_name: ballast-balancers
          honor_labels: true
          metrics_path: /q/metrics
          file_sd_configs: [{files: ["%s"], refresh_interval: 2s}]
        """.formatted(operator, balancers))) {
      await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
          assertThat(prometheus.query("up{job=\"ballast-operator\"} == 1")).as("the operator scraped").isNotEmpty());

      // The reference trainer, not the stand-in: its pods step together (an all-reduce per step), so the balancer
      // sees complete steps and the measured panels have data; the stand-ins' pods drift apart by whole steps.
      jobs.apply(Jobs.referenceTrainerManifest(JOB, 100_000));
      await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase(JOB)).isEqualTo("Running"));
      // and one that cannot fit (40 × 8 GPUs, more than the cluster has), so that the fleet's waiting panel has a reason
      jobs.apply(Jobs.manifest(TOO_BIG, 40, 40, "[]"));
      Pod balancer = await().atMost(WAIT).until(this::runningBalancer, p -> p != null);
      Files.writeString(balancers, "[{\"targets\": [\"" + balancer.getStatus().getPodIP() + ":8473\"]}]");

      Map<String, String> variables = new LinkedHashMap<>(BUILTINS);
      variables.put("namespace", jobs.namespace());
      variables.put("job", JOB);
      // A query counts once it has returned a finite value: a rate over a window can go empty again later.
      Map<String, String> pending = new TreeMap<>(panelQueries);
      Map<String, String> lastAnswers = new TreeMap<>();
      await().atMost(WAIT).pollInterval(Duration.ofSeconds(2)).untilAsserted(() -> {
        for (var query : List.copyOf(pending.entrySet())) {
          String expr = substitute(query.getValue(), variables);
          List<PrometheusServer.Sample> samples = prometheus.query(expr);
          lastAnswers.put(query.getKey(), expr + " -> " + samples);
          if (samples.stream().anyMatch(s -> Double.isFinite(s.value()))) {
            pending.remove(query.getKey());
          }
        }
        assertThat(pending.keySet()).as("panel queries without data so far: %s", lastAnswers).isEmpty();
      });
      assertThat(prometheus.query(substitute(panelQueries.get("Jobs waiting for admission, by reason / A"), variables)))
          .as("the waiting panel names the job's reason")
          .anyMatch(sample -> sample.labels().contains("\"reason\":\"InsufficientGPUs\"") && sample.value() >= 1);

      for (JsonNode variable : dashboard.path("templating").path("list")) {
        if (!variable.path("type").asText().equals("query")) {
          continue;
        }
        String name = variable.path("name").asText();
        Matcher m = LABEL_VALUES.matcher(variable.path("definition").asText());
        assertThat(m.matches()).as("variable %s is a label_values query", name).isTrue();
        assertThat(prometheus.labelValues(m.group(2), substitute(m.group(1), variables)))
            .as("the choices of variable %s", name).contains(variables.get(name));
      }
    } finally {
      env.kubectl("delete", "tj", JOB, TOO_BIG, "-n", jobs.namespace(), "--wait=false");
    }
  }

  /** Every panel's queries, rows' panels included, keyed "panel title / refId". */
  static Map<String, String> panelQueries(JsonNode dashboard) {
    Map<String, String> queries = new LinkedHashMap<>();
    List<JsonNode> panels = new ArrayList<>();
    dashboard.path("panels").forEach(panels::add);
    for (int i = 0; i < panels.size(); i++) {
      JsonNode panel = panels.get(i);
      panel.path("panels").forEach(panels::add);
      for (JsonNode target : panel.path("targets")) {
        queries.put(panel.path("title").asText() + " / " + target.path("refId").asText(), target.path("expr").asText());
      }
    }
    return queries;
  }

  /** The query with $name and ${name} replaced by the variables' values; a variable left over fails the test. */
  static String substitute(String query, Map<String, String> variables) {
    String result = query;
    for (var v : variables.entrySet()) {
      result = result.replace("${" + v.getKey() + "}", v.getValue()).replaceAll(
          "\\$" + Pattern.quote(v.getKey()) + "\\b", Matcher.quoteReplacement(v.getValue()));
    }
    assertThat(result).as("%s with its variables set", query).doesNotContain("$");
    return result;
  }

  Pod runningBalancer() {
    return env.admin().pods().inNamespace(jobs.namespace()).withLabel("ballast.dev/job", JOB)
        .withLabel("ballast.dev/role", "balancer").list().getItems().stream()
        .filter(p -> "Running".equals(p.getStatus().getPhase())).findFirst().orElse(null);
  }
}
