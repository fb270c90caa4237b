package dev.ballast.operator.config;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Set;

/**
 * Counts the operator's API requests by verb ({@code ballast_api_requests_total{verb}}), so that a benchmark reads
 * how many requests a reconcile costs and whether anything lists the cluster live (docs/BENCHMARKS.md, "Scale").
 */
final class ApiRequests implements Interceptor {
  /** The last path segment of a collection (a list or watch when read); any other last segment names one object. */
  private static final Set<String> COLLECTIONS = Set.of("pods", "nodes", "services", "configmaps", "secrets",
      "serviceaccounts", "deployments", "rolebindings", "trainingjobs", "events", "leases", "networkpolicies");

  private final MeterRegistry registry;

  ApiRequests(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    registry.counter("ballast.api.requests", "verb",
        verb(request.method(), request.uri().getPath(), request.uri().getQuery())).increment();
  }

  /** The Kubernetes verb of an HTTP request. Pure. */
  static String verb(String method, String path, String query) {
    String last = path.substring(path.lastIndexOf('/') + 1);
    boolean collection = COLLECTIONS.contains(last);
    return switch (method) {
      case "GET" -> !collection ? "get" : query != null && query.contains("watch=true") ? "watch" : "list";
      case "POST" -> "create";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> collection ? "deletecollection" : "delete";
      default -> method.toLowerCase(java.util.Locale.ROOT);
    };
  }
}
