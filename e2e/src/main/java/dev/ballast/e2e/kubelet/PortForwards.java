package dev.ballast.e2e.kubelet;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code kubectl port-forward} to a pod that runs as local processes. The API server sends a port-forward to the
 * pod's node's kubelet endpoint, which on a KWOK node is the kwok controller's server; it forwards by KWOK
 * {@code PortForward} objects (the cluster is created with that CRD enabled, e2e/cluster/up.sh). One per pod, named
 * after it, sends each declared container port to the same port on the pod's loopback address, as a kubelet would
 * reach the container. The pod owns it, so the garbage collector removes it with the pod.
 */
final class PortForwards {
  static final String API_VERSION = "kwok.x-k8s.io/v1alpha1";
  static final String KIND = "PortForward";

  private PortForwards() {
  }

  /** KWOK's PortForward for {@code pod} on {@code ip}; null when no container declares a port. */
  static GenericKubernetesResource of(Pod pod, String ip) {
    List<Map<String, Object>> forwards = Stream.concat(pod.getSpec().getInitContainers().stream(),
            pod.getSpec().getContainers().stream())
        .flatMap(c -> c.getPorts() == null ? Stream.empty() : c.getPorts().stream())
        .map(ContainerPort::getContainerPort).distinct().sorted()
        .map(port -> Map.<String, Object>of("ports", List.of(port), "target", Map.of("address", ip, "port", port)))
        .toList();
    if (forwards.isEmpty()) return null;
    return new GenericKubernetesResourceBuilder().withApiVersion(API_VERSION).withKind(KIND)
        .withNewMetadata().withName(pod.getMetadata().getName()).withNamespace(pod.getMetadata().getNamespace())
        .withOwnerReferences(new OwnerReferenceBuilder().withApiVersion("v1").withKind("Pod")
            .withName(pod.getMetadata().getName()).withUid(pod.getMetadata().getUid()).build())
        .endMetadata()
        .withAdditionalProperties(Map.of("spec", Map.of("forwards", forwards)))
        .build();
  }

  /** Creates or replaces {@code pod}'s PortForward; a failure only means port-forwards to it will not connect. */
  static void apply(KubernetesClient client, Pod pod, String ip) {
    GenericKubernetesResource forward = of(pod, ip);
    if (forward == null) return;
    try {
      client.genericKubernetesResources(API_VERSION, KIND).inNamespace(pod.getMetadata().getNamespace())
          .resource(forward).forceConflicts().serverSideApply();
    } catch (KubernetesClientException e) {
      java.util.logging.Logger.getLogger(PortForwards.class.getName()).warning("kubectl port-forward to pod "
          + pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName() + " will not connect: "
          + e.getMessage());
    }
  }
}
