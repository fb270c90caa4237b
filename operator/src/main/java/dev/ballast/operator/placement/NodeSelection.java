package dev.ballast.operator.placement;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which nodes a worker may run on by their labels and name: the pod template's nodeSelector (every
 * label must match) and its required node affinity (at least one term must match; null when the
 * template has none). Preferred affinity only ranks nodes, so it is not here.
 */
public record NodeSelection(Map<String, String> nodeSelector, List<AffinityTerm> requiredTerms) {
  public static final NodeSelection ANY = new NodeSelection(Map.of(), null);

  public NodeSelection {
    nodeSelector = nodeSelector == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(nodeSelector));
    requiredTerms = requiredTerms == null ? null : List.copyOf(requiredTerms);
  }

  public boolean matches(GpuNode node) {
    Map<String, String> labels = node.labels();
    for (Map.Entry<String, String> e : nodeSelector.entrySet()) {
      if (!e.getValue().equals(labels.get(e.getKey()))) return false;
    }
    return requiredTerms == null || requiredTerms.stream().anyMatch(t -> t.matches(node.name(), labels));
  }
}
