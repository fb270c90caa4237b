package dev.ballast.operator.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.http.HttpRequest;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ChaosExitTest {
  static HttpRequest request(String method, String path) {
    return (HttpRequest) Proxy.newProxyInstance(HttpRequest.class.getClassLoader(), new Class<?>[] {HttpRequest.class},
        (proxy, m, args) -> switch (m.getName()) {
          case "method" -> method;
          case "uri" -> URI.create("https://api" + path);
          default -> null;
        });
  }

  @Test
  void haltsBeforeTheWriteAfterTheChosenNumberAndCountsNeitherReadsNorLeases() {
    AtomicInteger halts = new AtomicInteger();
    var chaos = new ChaosExit(2, halts::incrementAndGet);
    chaos.before(null, request("GET", "/api/v1/pods"), null);
    chaos.before(null, request("POST", "/api/v1/namespaces/a/pods"), null);
    chaos.before(null, request("PUT", "/apis/coordination.k8s.io/v1/namespaces/s/leases/ballast-operator"), null);
    chaos.before(null, request("PATCH", "/apis/ballast.dev/v1alpha1/namespaces/a/trainingjobs/j/status"), null);
    assertThat(halts).as("two writes done").hasValue(0);
    chaos.before(null, request("DELETE", "/api/v1/namespaces/a/pods/p"), null);
    assertThat(halts).as("halted before the third").hasValue(1);
  }
}
