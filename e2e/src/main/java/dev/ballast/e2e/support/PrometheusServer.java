package dev.ballast.e2e.support;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ballast.contracts.env.LocalPorts;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A real Prometheus server (built by e2e/control-plane/build.sh) as a local process: it scrapes what its
 * configuration names and answers PromQL through its HTTP API. Its data lives in a directory of its own, emptied at
 * start, its log in {@code prometheus.log} of that directory.
 */
public final class PrometheusServer implements AutoCloseable {
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Process process;
  private final URI api;

  private PrometheusServer(Process process, URI api) {
    this.process = process;
    this.api = api;
  }

  /** Starts {@code binary} with {@code config} (prometheus.yml text) in {@code dir}, on a free loopback port. */
  public static PrometheusServer start(Path binary, Path dir, String config) throws IOException {
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException("no Prometheus at " + binary + ": run e2e/control-plane/build.sh prometheus");
    }
    Files.createDirectories(dir);
    Path data = dir.resolve("data");
    if (Files.exists(data)) { // an earlier run's series would answer the queries for up to five minutes
      try (var paths = Files.walk(data)) {
        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    Path configFile = Files.writeString(dir.resolve("prometheus.yml"), config);
    int port = LocalPorts.listenPort();
    Process process = new ProcessBuilder(binary.toString(), "--config.file=" + configFile,
        "--storage.tsdb.path=" + data, "--web.listen-address=127.0.0.1:" + port)
        .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
    return new PrometheusServer(process, URI.create("http://127.0.0.1:" + port + "/api/v1/"));
  }

  /** The samples of an instant query's vector result (empty when it has none); fails on a query error. */
  public List<Sample> query(String promql) throws IOException, InterruptedException {
    JsonNode data = get("query?query=" + encode(promql));
    List<Sample> samples = new ArrayList<>();
    for (JsonNode series : data.path("result")) {
      samples.add(new Sample(series.path("metric").toString(), Double.parseDouble(series.path("value").get(1).asText())));
    }
    return samples;
  }

  /** The values of {@code label} on series that match {@code selector} (what Grafana's label_values asks). */
  public List<String> labelValues(String label, String selector) throws IOException, InterruptedException {
    List<String> values = new ArrayList<>();
    get("label/" + label + "/values?match[]=" + encode(selector)).forEach(v -> values.add(v.asText()));
    return values;
  }

  private JsonNode get(String path) throws IOException, InterruptedException {
    if (!process.isAlive()) {
      throw new IllegalStateException("Prometheus exited with " + process.exitValue() + " (see prometheus.log)");
    }
    var response = HTTP.send(HttpRequest.newBuilder(api.resolve(path)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
    JsonNode body = Serialization.jsonMapper().readTree(response.body());
    if (!"success".equals(body.path("status").asText())) {
      throw new IllegalArgumentException("Prometheus answered " + response.statusCode() + " to " + path + ": "
          + body.path("error").asText(response.body()));
    }
    return body.path("data");
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    process.waitFor();
  }

  /** One series of a result: its labels (as JSON) and its value. */
  public record Sample(String labels, double value) {}
}
