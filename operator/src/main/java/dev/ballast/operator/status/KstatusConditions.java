package dev.ballast.operator.status;

import dev.ballast.operator.api.TrainingJobStatus;
import dev.ballast.operator.api.TrainingJobStatus.Phase;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * The two conditions kstatus decides health by, for Flux (its kustomize-controller's and helm-controller's health
 * checks), kpt and other kstatus readers (docs/gitops.md). Without them Flux's kstatus falls through to Ready, and a
 * failed job reads InProgress until Flux gives up waiting. Derived from the conditions the aggregator has set, with
 * the same mapping as the chart's Argo CD health script:
 * <ul>
 *   <li>{@code Stalled=True} while the job failed (the Failed condition's reason and message), a child's name is
 *       held by another object ({@code NameConflict}), or the spec is one the operator cannot act on
 *       ({@code InvalidSpec}): none of them ends without a person;
 *   <li>{@code Reconciling=True} while it is on its way to running: waiting for room, admitted, starting, resizing,
 *       restarting (status.reason and the message of the condition that gives it);
 *   <li>neither while it runs (Ready=True), once it succeeded, and while it is suspended.
 * </ul>
 * Absent, not False, when they do not hold: kstatus's conditions are "abnormal-true", and absence reads as False.
 */
public final class KstatusConditions {
  public static final String RECONCILING = "Reconciling";
  public static final String STALLED = "Stalled";

  private KstatusConditions() {}

  /** Sets or removes both on {@code s}; call after status.reason ({@link StatusReason}) is set. */
  static void apply(TrainingJobStatus s, long generation, String now) {
    Phase phase = s.phase == null ? Phase.Pending : s.phase;
    Condition stalled = phase == Phase.Failed ? holding(s.conditions, Conditions.FAILED, "True", null)
        : first(holding(s.conditions, Conditions.CHILDREN_OWNED, "False", null),
            holding(s.conditions, Conditions.READY, "False", StatusAggregator.INVALID_SPEC));
    boolean reconciling = stalled == null && phase != Phase.Succeeded && phase != Phase.Suspended
        && !Conditions.isTrue(s.conditions, Conditions.READY);
    // the one that holds keeps its lastTransitionTime (Conditions.set); the other is removed
    List<Condition> conditions = s.conditions.stream().filter(c -> !(STALLED.equals(c.getType()) && stalled == null)
        && !(RECONCILING.equals(c.getType()) && !reconciling)).toList();
    if (stalled != null) {
      conditions = Conditions.set(conditions, STALLED, true, stalled.getReason(), stalled.getMessage(), generation,
          now);
    }
    if (reconciling) {
      // the message of the condition that status.reason comes from, else of what admission or readiness says
      Condition why = first(s.conditions.stream().filter(c -> s.reason != null && s.reason.equals(c.getReason()))
          .findFirst().orElse(null), holding(s.conditions, Conditions.ADMITTED, "False", null),
          holding(s.conditions, Conditions.READY, "False", null));
      conditions = Conditions.set(conditions, RECONCILING, true, s.reason != null ? s.reason : phase.name(),
          phase + (why != null && why.getMessage() != null ? ": " + why.getMessage() : ""), generation, now);
    }
    s.conditions = conditions;
  }

  /** The condition of {@code type} while it has {@code status} (and {@code reason}, unless null); null otherwise. */
  private static Condition holding(List<Condition> conditions, String type, String status, String reason) {
    return conditions.stream().filter(c -> type.equals(c.getType()) && status.equals(c.getStatus()))
        .filter(c -> reason == null || reason.equals(c.getReason())).findFirst().orElse(null);
  }

  private static Condition first(Condition... candidates) {
    for (Condition c : candidates) {
      if (c != null) return c;
    }
    return null;
  }
}
