package dev.ballast.operator.world;

import dev.ballast.operator.placement.GpuNode;
import java.time.Instant;
import java.util.Set;

/**
 * A node as the world's decisions see it: its placement view, since when it is not Ready (null while
 * Ready), and whether it carries the {@code node.kubernetes.io/out-of-service} taint (an admin's word that
 * the node is down and its pods may be force-deleted).
 */
public record NodeState(GpuNode node, Instant notReadySince, boolean outOfService) {
  public static final String OUT_OF_SERVICE_TAINT = "node.kubernetes.io/out-of-service";
  /** Taints the node lifecycle controller sets while the Ready condition is False or Unknown. */
  public static final Set<String> READINESS_TAINTS = Set.of("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable");

  public String name() {
    return node.name();
  }
}
