package dev.ballast.operator.placement;

import java.util.List;
import java.util.Map;

/**
 * One requirement of a node-affinity term (a NodeSelectorRequirement), matched as the scheduler
 * does (k8s.io/apimachinery labels.Requirement): In, NotIn, Exists, DoesNotExist, Gt and Lt. A
 * requirement the scheduler could not parse (unknown operator, a Gt or Lt value that is not one
 * integer) matches no node, as there.
 */
public record LabelRequirement(String key, String operator, List<String> values) {
  public LabelRequirement {
    key = key == null ? "" : key;
    operator = operator == null ? "" : operator;
    values = values == null ? List.of() : List.copyOf(values);
  }

  public boolean matches(Map<String, String> labels) {
    String value = labels.get(key);
    return switch (operator) {
      case "In" -> value != null && values.contains(value);
      case "NotIn" -> value == null || !values.contains(value);
      case "Exists" -> value != null;
      case "DoesNotExist" -> value == null;
      case "Gt", "Lt" -> compare(value);
      default -> false;
    };
  }

  /**
   * A matchFields requirement: only metadata.name, only In or NotIn with one value (otherwise the
   * scheduler refuses the term, and it matches nothing).
   */
  public boolean matchesName(String nodeName) {
    if (!"metadata.name".equals(key) || values.size() != 1) return false;
    return switch (operator) {
      case "In" -> values.get(0).equals(nodeName);
      case "NotIn" -> !values.get(0).equals(nodeName);
      default -> false;
    };
  }

  private boolean compare(String value) {
    if (value == null || values.size() != 1) return false;
    try {
      long have = Long.parseLong(value);
      long bound = Long.parseLong(values.get(0));
      return "Gt".equals(operator) ? have > bound : have < bound;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
