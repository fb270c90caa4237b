package dev.ballast.operator.placement;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A node as placement sees it: what it can allocate (nvidia.com/gpu and every other resource),
 * whether pods may be put on it, where it sits in the GPU network, and its labels (for nodeSelector
 * and node affinity). {@code domain} (NVLink domain) and {@code rack} are label values, null (or
 * blank, read as null) when the node lacks the label.
 */
public record GpuNode(String name, Resources allocatable, boolean ready, boolean unschedulable,
                      List<Taint> taints, String domain, String rack, Map<String, String> labels) {

  public GpuNode {
    if (name == null || name.isBlank()) throw new IllegalArgumentException("node name must not be empty");
    allocatable = allocatable == null ? Resources.NONE : allocatable;
    taints = taints == null ? List.of() : List.copyOf(taints);
    domain = domain == null || domain.isBlank() ? null : domain;
    rack = rack == null || rack.isBlank() ? null : rack;
    labels = labels == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(labels));
  }

  /** A node that offers only GPUs, without labels beyond its topology. */
  public GpuNode(String name, int allocatableGpus, boolean ready, boolean unschedulable, List<Taint> taints,
      String domain, String rack) {
    this(name, Resources.gpus(allocatableGpus), ready, unschedulable, taints, domain, rack, Map.of());
  }

  public int allocatableGpus() {
    return (int) allocatable.get(Resources.GPU);
  }
}
