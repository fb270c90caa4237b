package dev.ballast.operator.status;

import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * status.reason: why a job is not simply running, as the reason of the condition that says so, for the one-line
 * view of {@code kubectl get tj} (docs/elastic.md "Status at a glance"). Pure; derived from the conditions the
 * aggregator just set, so it never disagrees with them. Null (absent) when nothing is in the way.
 */
public final class StatusReason {
  private StatusReason() {}

  public static String of(TrainingJobStatus s) {
    if (Conditions.isTrue(s.conditions, Conditions.RECONCILIATION_PAUSED)) return Conditions.RECONCILIATION_PAUSED;
    String r = firstFalse(s.conditions, Conditions.RECONCILED, Conditions.CHILDREN_OWNED);
    if (r != null) return r;
    Phase phase = s.phase == null ? Phase.Pending : s.phase;
    switch (phase) {
      case Succeeded, Suspended:
        return null;
      case Failed:
        return reasonOf(s.conditions, Conditions.FAILED, "True");
      case Running:
        if (Conditions.isTrue(s.conditions, Conditions.STRAGGLERS)) return Conditions.STRAGGLERS;
        return firstFalse(s.conditions, Conditions.READY, Conditions.PROGRESSING, Conditions.BALANCING);
      case Resizing, Restarting: {
        String resizing = reasonOf(s.conditions, Conditions.RESIZING, "True");
        return resizing != null ? resizing : firstFalse(s.conditions, Conditions.READY);
      }
      default: // Pending, Admitted: admission before the world's pods, as the operator's job index says
        return firstFalse(s.conditions, Conditions.ADMITTED, Conditions.READY);
    }
  }

  /** The reason of the first of {@code types} (in that order) that is False, or null. */
  private static String firstFalse(List<Condition> conditions, String... types) {
    for (String type : types) {
      String r = reasonOf(conditions, type, "False");
      if (r != null) return r;
    }
    return null;
  }

  private static String reasonOf(List<Condition> conditions, String type, String status) {
    for (Condition c : conditions) {
      if (type.equals(c.getType()) && status.equals(c.getStatus()) && c.getReason() != null
          && !c.getReason().isEmpty()) {
        return c.getReason();
      }
    }
    return null;
  }
}
