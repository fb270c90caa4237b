package dev.ballast.operator.reconcile;

import io.fabric8.kubernetes.api.model.Node;
import java.util.Objects;

/** Whether a Node update can change a placement or world decision (readiness, cordon, taints, labels, capacity). */
final class NodeChange {
  private NodeChange() {}

  static boolean matters(Node old, Node updated) {
    if (old == null || updated == null) return true;
    return !Objects.equals(ready(old), ready(updated))
        || !Objects.equals(old.getSpec(), updated.getSpec())
        || !Objects.equals(old.getMetadata().getLabels(), updated.getMetadata().getLabels())
        || !Objects.equals(allocatable(old), allocatable(updated));
  }

  private static String ready(Node node) {
    if (node.getStatus() == null) return null;
    return node.getStatus().getConditions().stream().filter(c -> "Ready".equals(c.getType()))
        .map(c -> c.getStatus()).findFirst().orElse(null);
  }

  private static Object allocatable(Node node) {
    return node.getStatus() == null ? null : node.getStatus().getAllocatable();
  }
}
