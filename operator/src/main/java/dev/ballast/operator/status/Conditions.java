package dev.ballast.operator.status;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Condition types and the one rule for setting them: lastTransitionTime moves only when status flips. */
public final class Conditions {
  public static final String ADMITTED = "Admitted";
  public static final String READY = "Ready";
  public static final String SUCCEEDED = "Succeeded";
  public static final String FAILED = "Failed";
  public static final String SUSPENDED = "Suspended";
  /** True while a voluntary resize (growth, spec change, drain) replaces the world. */
  public static final String RESIZING = "Resizing";
  /** Whether the balancer can plan the running world (absent with balancer.mode: off); from status.balancer. */
  public static final String BALANCING = "Balancing";
  /** Set only when spec.recovery.progressDeadlineSeconds is: whether the running world reports steps. */
  public static final String PROGRESSING = "Progressing";

  /**
   * From status.balancer.stragglers, while the world runs: True naming the GPU ranks (and pods) that run persistently
   * slower than their peers or stopped reporting; False once none is left (a job that never had one never shows it).
   */
  public static final String STRAGGLERS = "Stragglers";

  /** Set once a child's name was found held by another object: False while it is, True after. */
  public static final String CHILDREN_OWNED = "ChildrenOwned";

  /** Set once a reconcile threw: False with the failed step and error while the last reconcile did, True after. */
  public static final String RECONCILED = "Reconciled";

  /**
   * Set once the job was paused (annotation ballast.dev/pause-reconciliation): True while it is, False (Resumed)
   * after.
   */
  public static final String RECONCILIATION_PAUSED = "ReconciliationPaused";

  private Conditions() {}

  /** Returns {@code previous} with {@code type} set; the list keeps a stable order (insertion). */
  public static List<Condition> set(List<Condition> previous, String type, boolean status, String reason,
      String message, long generation, String now) {
    List<Condition> result = new ArrayList<>();
    boolean found = false;
    String value = status ? "True" : "False";
    for (Condition c : previous) {
      if (!type.equals(c.getType())) {
        result.add(c);
        continue;
      }
      found = true;
      String transition = Objects.equals(c.getStatus(), value) ? c.getLastTransitionTime() : now;
      result.add(condition(type, value, reason, message, generation, transition));
    }
    if (!found) result.add(condition(type, value, reason, message, generation, now));
    return result;
  }

  public static boolean has(List<Condition> conditions, String type) {
    return conditions.stream().anyMatch(c -> type.equals(c.getType()));
  }

  public static boolean isTrue(List<Condition> conditions, String type) {
    return conditions.stream().anyMatch(c -> type.equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** The reason of the {@code type} condition while it is False; null when it is absent or not False. */
  public static String falseReason(List<Condition> conditions, String type) {
    return conditions.stream().filter(c -> type.equals(c.getType()) && "False".equals(c.getStatus()))
        .map(Condition::getReason).findFirst().orElse(null);
  }

  private static Condition condition(String type, String status, String reason, String message, long generation,
      String transition) {
    return new ConditionBuilder().withType(type).withStatus(status).withReason(reason).withMessage(message)
        .withObservedGeneration(generation).withLastTransitionTime(transition).build();
  }
}
