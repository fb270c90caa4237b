package dev.ballast.e2e.datapath;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.Jobs;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The real agent on the real control plane: the balancer (as its own ServiceAccount, bound by the
 * operator to the chart's ballast-balancer ClusterRole) reads the job and the world ConfigMap, and
 * writes status.balancer with server-side apply beside the operator's status; every sidecar finds the
 * balancer through its Service and is accepted with the job's secret.
 */
@E2eTest
class DataPathTest {
  static final Duration WAIT = Duration.ofMinutes(3);
  final BallastEnvironment env;
  final Jobs jobs;
  static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  DataPathTest(BallastEnvironment env) {
    this.env = env;
    this.jobs = new Jobs(env, DataPathTest.class);
  }

  /** GET of an agent's HTTP endpoint (the sidecar's trainer API, the balancer's dashboard) at the pod's address. */
  static String get(Pod pod, int port, String path, String token) throws IOException, InterruptedException {
    return send(pod, port, path, token).body();
  }

  static HttpResponse<String> send(Pod pod, int port, String path, String token)
      throws IOException, InterruptedException {
    var request = HttpRequest.newBuilder(URI.create("http://" + pod.getStatus().getPodIP() + ":" + port + path))
        .timeout(Duration.ofSeconds(5));
    if (token != null) request.header("Authorization", "Bearer " + token);
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * The job's token, from the Secret the operator created (what a dashboard presents to the balancer), found through
   * the balancer Deployment's own reference to it (the Secret's name carries the job's uid).
   */
  static String token(BallastEnvironment env, String namespace, String job) {
    var secret = env.admin().apps().deployments().inNamespace(namespace).withName(job + "-balancer").get()
        .getSpec().getTemplate().getSpec().getContainers().get(0).getEnv().stream()
        .filter(e -> e.getName().equals("BALLAST_TOKEN")).findFirst().orElseThrow()
        .getValueFrom().getSecretKeyRef();
    return secretValue(env, namespace, secret.getName(), secret.getKey());
  }

  String token(String job) {
    return token(env, jobs.namespace(), job);
  }

  static String secretValue(BallastEnvironment env, String namespace, String secret, String key) {
    var s = env.admin().secrets().inNamespace(namespace).withName(secret).get();
    return new String(java.util.Base64.getDecoder().decode(s.getData().get(key)), java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * A TLS handshake with the balancer's gRPC port, as a sidecar does it: trusting only {@code caPem}, checking the
   * certificate against {@code serverName} while dialling the pod's address. Returns the certificate presented.
   */
  static java.security.cert.X509Certificate tlsHandshake(Pod balancer, String caPem, String serverName) throws Exception {
    var ca = java.security.cert.CertificateFactory.getInstance("X.509")
        .generateCertificate(new java.io.ByteArrayInputStream(caPem.getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
    var store = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
    store.load(null, null);
    store.setCertificateEntry("job-ca", ca);
    var trust = javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    trust.init(store);
    var context = javax.net.ssl.SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);
    try (var tcp = new java.net.Socket(balancer.getStatus().getPodIP(), 8471);
        var tls = (javax.net.ssl.SSLSocket) context.getSocketFactory().createSocket(tcp, serverName, 8471, false)) {
      var parameters = tls.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      parameters.setApplicationProtocols(new String[] {"h2"});
      tls.setSSLParameters(parameters);
      tls.startHandshake();
      return (java.security.cert.X509Certificate) tls.getSession().getPeerCertificates()[0];
    }
  }

  @Test
  void sidecarsConnectToTheBalancerWhichWritesItsOwnPartOfTheStatus() throws Exception {
    jobs.apply(Jobs.manifest("wired", 2, 2, "[]"));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("wired")).isEqualTo("Running"));

    await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> {
      for (Pod worker : jobs.workers("wired")) {
        assertThat(get(worker, 8470, "/healthz", null)).as("sidecar of %s", worker.getMetadata().getName())
            .contains("\"connected\":true");
      }
    });
    Pod balancer = env.admin().pods().inNamespace(jobs.namespace()).withLabel("ballast.dev/job", "wired")
        .withLabel("ballast.dev/role", "balancer").list().getItems().stream()
        .filter(p -> "Running".equals(p.getStatus().getPhase())).findFirst().orElseThrow();
    await().atMost(WAIT).ignoreExceptions().untilAsserted(() ->
        assertThat(send(balancer, 8472, "/v1/status", token("wired")).body()).contains("\"sidecars\":2"));
    // the balancer's API answers only with the job's token; its health port stays open to the kubelet
    var refused = send(balancer, 8472, "/v1/loads", null);
    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(refused.body()).contains("Authorization: Bearer <token>").contains("wired-sidecar-auth");
    assertThat(send(balancer, 8472, "/v1/loads", "not-" + token("wired")).statusCode()).isEqualTo(401);
    assertThat(send(balancer, 8473, "/q/health/ready", null).statusCode()).isEqualTo(200);

    // the sidecars' stream is TLS: the balancer presents a certificate of the job's CA for its Service's name
    String ca = secretValue(env, jobs.namespace(), "wired-balancer-tls", "ca.crt");
    var presented = tlsHandshake(balancer, ca, "wired-balancer." + jobs.namespace() + ".svc");
    assertThat(presented.getSubjectX500Principal().getName()).contains("CN=wired-balancer." + jobs.namespace() + ".svc");
    assertThat(presented.getIssuerX500Principal().getName()).contains("ballast job CA " + jobs.namespace() + "/wired");
    assertThatThrownBy(() -> tlsHandshake(balancer, ca, "other-balancer." + jobs.namespace() + ".svc"))
        .as("another name").isInstanceOf(javax.net.ssl.SSLHandshakeException.class);

    await().atMost(WAIT).untilAsserted(() -> {
      @SuppressWarnings("unchecked")
      Map<String, Object> part = (Map<String, Object>) jobs.status("wired").get("balancer");
      assertThat(part).as("status.balancer").isNotNull().containsKey("planSequence");
    });
    List<ManagedFieldsEntry> managers = jobs.get("wired").getMetadata().getManagedFields();
    assertThat(managers).anySatisfy(m -> {
      assertThat(m.getManager()).isEqualTo("ballast-balancer");
      assertThat(m.getOperation()).isEqualTo("Apply");
      assertThat(m.getSubresource()).isEqualTo("status");
      assertThat(statusFields(m)).containsKey("f:balancer").doesNotContainKey("f:phase");
    });
    // the operator owns phase and the world (whose frozen spec has a balancer part), never status.balancer
    assertThat(managers).anySatisfy(m -> {
      assertThat(m.getManager()).isEqualTo("ballast-operator");
      assertThat(statusFields(m)).containsKey("f:phase").doesNotContainKey("f:balancer");
    });
    assertThat(jobs.phase("wired")).as("the operator's status is intact beside the balancer's").isEqualTo("Running");

    // metrics (docs/metrics.md): the balancer's (on its health port) and the operator's /q/metrics show this job; the
    // sidecar serves none on either of its ports
    String series = "\\{job=\"wired\",namespace=\"" + jobs.namespace() + "\"";
    await().atMost(WAIT).ignoreExceptions().untilAsserted(() -> assertThat(get(balancer, 8473, "/q/metrics", null))
        .containsPattern(line("ballast_balancer_sidecars_connected" + series + "} 2(\\.0)?"))
        .containsPattern(line("ballast_balancer_world_generation" + series + "} 1(\\.0)?"))
        .containsPattern(line("ballast_balancer_refusals_total" + series + ",reason=\"bad_report\"} 0(\\.0)?")));
    assertThat(status(jobs.workers("wired").get(0), 8473, "/q/metrics")).as("the sidecar's metrics").isEqualTo(404);
    URI operatorMetrics = env.operatorUri("/q/metrics");
    // the per-job series follow the operator's cache within 15 s (docs/metrics.md)
    await().atMost(Duration.ofSeconds(45)).untilAsserted(() -> assertThat(HTTP.send(
            HttpRequest.newBuilder(operatorMetrics).build(), HttpResponse.BodyHandlers.ofString()).body())
        .as("the operator's metrics")
        .containsPattern(line("ballast_job_gpus" + series + ",state=\"running\"} 16(\\.0)?"))
        .containsPattern(line("ballast_jobs\\{phase=\"Running\"} [1-9][0-9]*(\\.0)?"))
        .containsPattern(line("ballast_reconcile_step_seconds_count\\{step=\"admission\"} [1-9].*"))
        .containsPattern(line("ballast_admission_wait_seconds_count [1-9].*")));
    env.kubectl("delete", "tj", "wired", "-n", jobs.namespace(), "--wait=false").ok();
  }

  /** A whole line of the Prometheus text format. */
  static java.util.regex.Pattern line(String regex) {
    return java.util.regex.Pattern.compile("^" + regex + "$", java.util.regex.Pattern.MULTILINE);
  }

  static int status(Pod pod, int port, String path) throws IOException, InterruptedException {
    return send(pod, port, path, null).statusCode();
  }

  @Test
  void trainersReportLoadsAndEveryRankAdoptsTheBalancersPlan() {
    // Stand-in trainers (e2e/programs/trainer.py) report a skewed load per GPU every 100 ms through the Python client
    // and follow plans by the adoption rule; the balancer re-plans every 20 steps.
    jobs.apply(Jobs.reportingManifest("looped", ""));
    await().atMost(WAIT).untilAsserted(() -> assertThat(jobs.phase("looped")).isEqualTo("Running"));
    await().atMost(WAIT).untilAsserted(() -> {
      @SuppressWarnings("unchecked")
      Map<String, Object> part = (Map<String, Object>) jobs.status("looped").get("balancer");
      assertThat(part).as("status.balancer").isNotNull();
      String version = (String) part.get("planVersion");
      assertThat(version).as("the newest plan every rank adopted").isNotNull().doesNotEndWith(".0");
      assertThat(((Number) part.get("adoptedAtStep")).longValue()).isPositive();
      assertThat(((Number) part.get("imbalanceAfter")).doubleValue()).as("predicted busiest GPU over mean")
          .isLessThan(((Number) part.get("imbalanceBefore")).doubleValue());
    });
    env.kubectl("delete", "tj", "looped", "-n", jobs.namespace(), "--wait=false").ok();
  }

  /** The top-level status fields a manager owns (an empty map when it owns none). */
  @SuppressWarnings("unchecked")
  static Map<String, Object> statusFields(ManagedFieldsEntry m) {
    Object status = m.getFieldsV1().getAdditionalProperties().get("f:status");
    return status instanceof Map<?, ?> fields ? (Map<String, Object>) fields : Map.of();
  }
}
