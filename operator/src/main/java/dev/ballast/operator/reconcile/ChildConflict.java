package dev.ballast.operator.reconcile;

import dev.ballast.operator.api.TrainingJob;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.util.Optional;

/**
 * A child the job needs whose name another object holds: e.g. jobs {@code train} and {@code train-balancer} in one
 * namespace both want a Service {@code train-balancer} (the first's balancer, the second's headless Service). Pure.
 *
 * @param kind the child's kind
 * @param name the name both want
 * @param holder who holds it, in words ("TrainingJob train-balancer", "no controller")
 */
public record ChildConflict(String kind, String name, String holder) {

  /** The conflict {@code live} (the object that holds the name of one of {@code job}'s children) makes, if any. */
  public static Optional<ChildConflict> of(TrainingJob job, HasMetadata live) {
    OwnerReference controller = live.getMetadata().getOwnerReferences().stream()
        .filter(o -> Boolean.TRUE.equals(o.getController())).findFirst().orElse(null);
    if (controller != null && job.getMetadata().getUid().equals(controller.getUid())) return Optional.empty();
    String holder = controller == null ? "no controller" : controller.getKind() + " " + controller.getName();
    return Optional.of(new ChildConflict(live.getKind(), live.getMetadata().getName(), holder));
  }

  public String message() {
    return kind + " " + name + " already exists, controlled by " + holder + ", not by this job; rename this job or "
        + "remove that " + kind;
  }
}
