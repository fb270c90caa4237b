package dev.ballast.operator.placement;

import java.util.List;

/**
 * A node as placement sees it: its allocatable GPUs, whether pods may be put on it, and where it sits
 * in the GPU network. {@code domain} (NVLink domain) and {@code rack} are label values, null (or
 * blank, read as null) when the node lacks the label.
 */
public record GpuNode(String name, int allocatableGpus, boolean ready, boolean unschedulable,
                      List<Taint> taints, String domain, String rack) {

  public GpuNode {
    if (name == null || name.isBlank()) throw new IllegalArgumentException("node name must not be empty");
    if (allocatableGpus < 0) {
      throw new IllegalArgumentException("node " + name + ": allocatable GPUs " + allocatableGpus + " < 0");
    }
    taints = taints == null ? List.of() : List.copyOf(taints);
    domain = domain == null || domain.isBlank() ? null : domain;
    rack = rack == null || rack.isBlank() ? null : rack;
  }
}
