package dev.ballast.operator.placement;

import java.util.Set;

/**
 * A node taint as Kubernetes defines it. A null value is the empty value; the effect must be one of
 * the three the API server accepts.
 */
public record Taint(String key, String value, String effect) {
  public static final String NO_SCHEDULE = "NoSchedule";
  public static final String PREFER_NO_SCHEDULE = "PreferNoSchedule";
  public static final String NO_EXECUTE = "NoExecute";
  private static final Set<String> EFFECTS = Set.of(NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE);

  public Taint {
    if (key == null || key.isBlank()) throw new IllegalArgumentException("taint key must not be empty");
    value = value == null ? "" : value;
    if (!EFFECTS.contains(effect)) {
      throw new IllegalArgumentException("taint " + key + ": effect '" + effect
          + "' is not one of NoSchedule, PreferNoSchedule, NoExecute");
    }
  }

  /** Whether a pod that does not tolerate this taint is kept off the node (PreferNoSchedule is only a hint). */
  public boolean blocksScheduling() {
    return !PREFER_NO_SCHEDULE.equals(effect);
  }

  @Override
  public String toString() {
    return key + (value.isEmpty() ? "" : "=" + value) + ":" + effect;
  }
}
