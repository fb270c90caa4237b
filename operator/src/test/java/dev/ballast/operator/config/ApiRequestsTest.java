package dev.ballast.operator.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ApiRequestsTest {
  @Test
  void requestsAreCountedByTheirKubernetesVerb() {
    assertThat(ApiRequests.verb("GET", "/api/v1/pods", "resourceVersion=0")).isEqualTo("list");
    assertThat(ApiRequests.verb("GET", "/api/v1/pods", "allowWatchBookmarks=true&watch=true")).isEqualTo("watch");
    assertThat(ApiRequests.verb("GET", "/api/v1/namespaces/a/pods/w0", null)).isEqualTo("get");
    assertThat(ApiRequests.verb("GET", "/apis/ballast.dev/v1alpha1/namespaces/a/trainingjobs", null)).isEqualTo("list");
    assertThat(ApiRequests.verb("POST", "/api/v1/namespaces/a/pods", null)).isEqualTo("create");
    assertThat(ApiRequests.verb("PATCH", "/apis/ballast.dev/v1alpha1/namespaces/a/trainingjobs/j/status", null))
        .isEqualTo("patch");
    assertThat(ApiRequests.verb("PUT", "/api/v1/namespaces/a/services/s", null)).isEqualTo("update");
    assertThat(ApiRequests.verb("DELETE", "/api/v1/namespaces/a/pods/w0", null)).isEqualTo("delete");
  }
}
