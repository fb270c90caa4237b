package dev.ballast.operator.placement;

import java.util.List;
import java.util.Map;

/**
 * One term of required node affinity (a NodeSelectorTerm): a node matches when it meets every
 * requirement of the term. A term with no requirements matches no node, as in Kubernetes.
 */
public record AffinityTerm(List<LabelRequirement> matchExpressions, List<LabelRequirement> matchFields) {
  public AffinityTerm {
    matchExpressions = matchExpressions == null ? List.of() : List.copyOf(matchExpressions);
    matchFields = matchFields == null ? List.of() : List.copyOf(matchFields);
  }

  public boolean matches(String nodeName, Map<String, String> labels) {
    if (matchExpressions.isEmpty() && matchFields.isEmpty()) return false;
    return matchExpressions.stream().allMatch(r -> r.matches(labels))
        && matchFields.stream().allMatch(r -> r.matchesName(nodeName));
  }
}
