package dev.ballast.operator.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.config.OperatorConfig;
import dev.ballast.operator.reconcile.TrainingJobReconciler;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** The packaged application starts: CDI wiring, configuration mapping and the controller registration. */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
class OperatorAppTest {
  @Inject TrainingJobReconciler reconciler;
  @Inject OperatorConfig config;

  @io.quarkus.test.common.http.TestHTTPResource("/")
  java.net.URI url;

  @Test
  void servesHealthAndMetricsForTheChartsProbesAndServiceMonitor() throws Exception {
    var http = java.net.http.HttpClient.newHttpClient();
    for (String path : new String[] {"/q/health/live", "/q/health/ready", "/q/metrics"}) {
      var response = http.send(java.net.http.HttpRequest.newBuilder(url.resolve(path)).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(path).isEqualTo(200);
    }
  }

  @Test
  void servesTheIndexOfJobsFromItsJarAndItsDataOnlyToASignedInPerson() throws Exception {
    var http = java.net.http.HttpClient.newHttpClient();
    for (String asset : new String[] {"/dashboard/", "/dashboard/index.js", "/dashboard/index.css",
        "/dashboard/session.js"}) {
      var response = http.send(java.net.http.HttpRequest.newBuilder(url.resolve(asset)).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(asset).isEqualTo(200);
      assertThat(response.headers().firstValue("Content-Security-Policy")).as(asset).hasValueSatisfying(
          csp -> assertThat(csp).startsWith("default-src 'self'"));
    }
    var data = http.send(java.net.http.HttpRequest.newBuilder(url.resolve("/dashboard/api/jobs")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(data.statusCode()).isEqualTo(401);
    assertThat(data.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"ballast-dashboard\"");
    assertThat(data.body()).contains("sign in with your Kubernetes token");
    assertThat(http.send(java.net.http.HttpRequest.newBuilder(url.resolve("/dashboard/nope.js")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(404);
  }

  @Test
  void startsWithTheReconcilerAndDefaults() {
    assertThat(reconciler).isNotNull();
    assertThat(config.settings().sidecarPort()).isEqualTo(8470);
    assertThat(config.settings().masterPort()).isEqualTo(29500);
  }
}
