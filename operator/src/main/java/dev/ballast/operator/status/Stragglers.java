package dev.ballast.operator.status;

import dev.ballast.operator.api.BalancerStragglerSchema;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Objects;

/** The Stragglers condition's message (each rank the balancer flagged, with its pod and why) and its events. Pure. */
public final class Stragglers {
  private Stragglers() {}

  /** An event to record on the job: a Warning or a Normal one. */
  public record Event(boolean warning, String reason, String message) {}

  /**
   * The event for a change of the Stragglers condition from {@code before} to {@code after} (the previous and the
   * next status' conditions), or null when it did not change: a Warning naming who is flagged whenever that set
   * changes, a Normal one when none is left. So a running job records one event per change, not per reconcile.
   */
  public static Event event(List<Condition> before, List<Condition> after) {
    Condition was = find(before, Conditions.STRAGGLERS);
    Condition is = find(after, Conditions.STRAGGLERS);
    if (is == null || (was != null && Objects.equals(was.getStatus(), is.getStatus())
        && Objects.equals(was.getMessage(), is.getMessage()))) {
      return null;
    }
    if ("True".equals(is.getStatus())) return new Event(true, Conditions.STRAGGLERS, "Stragglers: " + is.getMessage());
    return was != null && "True".equals(was.getStatus()) ? new Event(false, is.getReason(), is.getMessage()) : null;
  }

  private static Condition find(List<Condition> conditions, String type) {
    return conditions == null ? null
        : conditions.stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
  }

  /** "" when {@code flagged} is null or empty. */
  public static String describe(List<BalancerStragglerSchema> flagged) {
    if (flagged == null || flagged.isEmpty()) return "";
    StringBuilder sb = new StringBuilder();
    for (BalancerStragglerSchema x : flagged) {
      if (sb.length() > 0) sb.append("; ");
      sb.append("GPU rank ").append(x.rank).append(" (pod ").append(x.pod).append(") ")
          .append("silent".equals(x.kind) ? "stopped reporting"
              : "runs slower than its peers (at least 1.3× their median for 3 windows of 8 steps)");
    }
    return sb.toString();
  }
}
