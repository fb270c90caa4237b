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
 * names through the API: {@code <pod>.<subdomain>.<ns>.svc} names a pod, {@code <svc>.<ns>.svc} the
 * first pod (by name) its selector matches. An address is given out on first use, so a name can be
 * resolved before its pod has started.
 */
final class Addresses {
  private final KubernetesClient client;
  private final Map<String, String> byPod = new ConcurrentHashMap<>();
  private final AtomicInteger next = new AtomicInteger(1);

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
    if (svc == null || svc.getSpec().getSelector() == null) return null;
    return client.pods().inNamespace(namespace).withLabels(svc.getSpec().getSelector()).list().getItems().stream()
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .map(Pod::getMetadata).map(m -> m.getName()).min(Comparator.naturalOrder())
        .map(name -> of(namespace, name)).orElse(null);
  }
}
