package dev.ballast.operator.observe;

import dev.ballast.operator.api.TopologySpec;
import dev.ballast.operator.placement.GpuNode;
import dev.ballast.operator.placement.Taint;
import io.fabric8.kubernetes.api.model.Node;
import java.util.List;
import java.util.Map;

/**
 * A Node parsed once, when its informer event arrives: its allocatable quantities, readiness, taints and labels as
 * placement reads them. Its topology (NVLink domain, rack) depends on the label names a job's spec chooses, so
 * {@link #on(TopologySpec)} resolves it, remembering the last answer (nearly every job uses the default labels).
 * Immutable apart from that memo, which is a pure function of the record.
 */
public final class NodeRecord {
  private final GpuNode node;
  private volatile GpuNode placed;

  private NodeRecord(GpuNode node) {
    this.node = node;
  }

  public static NodeRecord of(Node node) {
    var labels = node.getMetadata().getLabels() == null ? Map.<String, String>of() : node.getMetadata().getLabels();
    var allocatable = node.getStatus() == null || node.getStatus().getAllocatable() == null
        ? dev.ballast.operator.placement.Resources.NONE : PodRequests.resources(node.getStatus().getAllocatable());
    boolean ready = node.getStatus() != null && node.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    boolean unschedulable = node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
    List<Taint> taints = node.getSpec() == null ? List.of() : node.getSpec().getTaints().stream()
        .map(t -> new Taint(t.getKey(), t.getValue(), t.getEffect())).toList();
    return new NodeRecord(new GpuNode(node.getMetadata().getName(), allocatable, ready, unschedulable, taints,
        null, null, labels));
  }

  public String name() {
    return node.name();
  }

  public boolean hasGpus() {
    return node.allocatableGpus() > 0;
  }

  /** The node as placement sees it, its domain and rack read from the labels {@code topology} names. */
  public GpuNode on(TopologySpec topology) {
    String domain = node.labels().get(topology.domainLabel);
    String rack = node.labels().get(topology.rackLabel);
    GpuNode last = placed;
    if (last != null && java.util.Objects.equals(last.domain(), blankAsNull(domain))
        && java.util.Objects.equals(last.rack(), blankAsNull(rack))) {
      return last;
    }
    GpuNode resolved = new GpuNode(node.name(), node.allocatable(), node.ready(), node.unschedulable(), node.taints(),
        domain, rack, node.labels());
    placed = resolved;
    return resolved;
  }

  private static String blankAsNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
