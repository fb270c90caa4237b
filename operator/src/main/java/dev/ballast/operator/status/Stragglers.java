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

  /**
   * "" when {@code flagged} is null or empty. Consecutive ranks of one pod flagged for the same reason read as one
   * range ("GPU ranks 0–7 (pod x) run slower ..."): a worker with 8 GPUs that lags flags all 8, and the condition and
   * its event should say so once.
   */
  public static String describe(List<BalancerStragglerSchema> flagged) {
    if (flagged == null || flagged.isEmpty()) return "";
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < flagged.size(); ) {
      BalancerStragglerSchema first = flagged.get(i);
      int j = i + 1;
      while (j < flagged.size() && sameRun(flagged.get(j - 1), flagged.get(j))) j++;
      boolean one = j == i + 1;
      if (sb.length() > 0) sb.append("; ");
      sb.append(one ? "GPU rank " + first.rank : "GPU ranks " + first.rank + "–" + flagged.get(j - 1).rank)
          .append(" (pod ").append(first.pod).append(") ")
          .append("silent".equals(first.kind) ? "stopped reporting"
              : (one ? "runs" : "run") + " slower than " + (one ? "its" : "their")
                  + " peers (at least 1.3× their median for 3 windows of 8 steps)");
      i = j;
    }
    return sb.toString();
  }

  /** Whether {@code next} continues {@code prev}'s range: the next rank, same pod, flagged for the same reason. */
  private static boolean sameRun(BalancerStragglerSchema prev, BalancerStragglerSchema next) {
    return prev.rank != null && next.rank != null && next.rank == prev.rank + 1
        && Objects.equals(prev.pod, next.pod) && Objects.equals(prev.kind, next.kind);
  }
}
