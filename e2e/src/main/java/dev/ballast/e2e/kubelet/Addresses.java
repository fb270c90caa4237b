package dev.ballast.e2e.kubelet;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Pod IPs on the loopback range (every 127.x.y.z is local on Linux) and a resolver for cluster DNS
 * names through the API: {@code <pod>.<subdomain>.<ns>.svc} names a pod; {@code <svc>.<ns>.svc} a
 * Service, which gets its own address served by a {@link ServiceProxy} (the first pod by name for a
 * headless one). An address is given out on first use, so a name resolves before its pod starts.
 */
final class Addresses {
  private final KubernetesClient client;
  private final Map<String, String> byPod = new ConcurrentHashMap<>();
  private final AtomicInteger next = new AtomicInteger(1);
  private final Map<String, ServiceProxy> proxies = new ConcurrentHashMap<>();

  Addresses(KubernetesClient client) {
    this.client = client;
  }

  String of(String namespace, String pod) {
    return byPod.computeIfAbsent(namespace + "/" + pod, k -> {
      int n = next.getAndIncrement();
      return "127.0." + (1 + n / 250) + "." + (1 + n % 250);
    });
  }

  /** The address for a cluster DNS name, or null when the name is not one of this cluster's. */
  String resolve(String host) {
    String h = host.endsWith(".cluster.local") ? host.substring(0, host.length() - ".cluster.local".length()) : host;
    if (!h.endsWith(".svc")) return null;
    String[] parts = h.substring(0, h.length() - ".svc".length()).split("\\.");
    if (parts.length == 3) return of(parts[2], parts[0]); // <pod>.<subdomain>.<namespace>
    if (parts.length != 2) return null;
    String namespace = parts[1];
    Service svc = client.services().inNamespace(namespace).withName(parts[0]).get();
    if (svc == null) return null;
    if (!"None".equals(svc.getSpec().getClusterIP())) return serviceAddress(svc);
    return firstPod(svc, false); // a headless Service names its pods: the first by name
  }

  /** The address of the first pod (by name) the Service selects, optionally only a running one; null if none. */
  String firstPod(Service svc, boolean running) {
    String namespace = svc.getMetadata().getNamespace();
    if (svc.getSpec().getSelector() == null) return null;
    return client.pods().inNamespace(namespace).withLabels(svc.getSpec().getSelector()).list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(p -> !running || (p.getStatus() != null && "Running".equals(p.getStatus().getPhase())))
        .map(Pod::getMetadata).map(m -> m.getName()).min(Comparator.naturalOrder())
        .map(name -> of(namespace, name)).orElse(null);
  }

  /** A stable address for a Service with a cluster IP, served by a {@link ServiceProxy} started on first use. */
  private String serviceAddress(Service svc) {
    String key = "svc:" + svc.getMetadata().getNamespace() + "/" + svc.getMetadata().getName();
    String ip = of("", key);
    proxies.computeIfAbsent(key, k -> {
      try {
        return new ServiceProxy(client, this, svc, ip);
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("cannot serve service " + k + " on " + ip, e);
      }
    });
    return ip;
  }

  void close() {
    proxies.values().forEach(ServiceProxy::close);
    proxies.clear();
  }
}
