package dev.ballast.operator.placement;

/**
 * A pod toleration. Null fields are the empty string, as in the Kubernetes API; an empty operator
 * means Equal.
 */
public record Toleration(String key, String operator, String value, String effect) {
  public static final String EXISTS = "Exists";
  public static final String EQUAL = "Equal";

  public Toleration {
    key = key == null ? "" : key;
    operator = operator == null ? "" : operator;
    value = value == null ? "" : value;
    effect = effect == null ? "" : effect;
  }

  /**
   * Kubernetes' matching rule (k8s.io/api core/v1 Toleration.ToleratesTaint): an empty effect matches
   * every effect, an empty key matches every key (valid only with Exists, so an empty key with Exists
   * tolerates everything), Exists ignores the value, Equal (or empty) compares it. Operators this
   * version does not know tolerate nothing, as in Kubernetes.
   */
  public boolean tolerates(Taint taint) {
    if (!effect.isEmpty() && !effect.equals(taint.effect())) return false;
    if (!key.isEmpty() && !key.equals(taint.key())) return false;
    return switch (operator) {
      case EXISTS -> true;
      case EQUAL, "" -> value.equals(taint.value());
      default -> false;
    };
  }
}
