package dev.ballast.operator.validate;

import dev.ballast.operator.api.TrainingJobSpec;
import dev.ballast.operator.desired.WorkerPods;
import io.fabric8.kubernetes.api.model.Container;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The checks without which the operator could not build a worker pod at all, repeated from the CRD's
 * CEL rules (same messages) for jobs the API server stored before those rules existed: it does not
 * re-validate stored objects, and ratcheting lets an unchanged field through later updates. Every
 * other template field a stale job carries is overridden by {@link WorkerPods}. A job with problems
 * is reported in its status and left alone.
 */
public final class SpecValidator {
  private SpecValidator() {}

  public static List<String> validate(TrainingJobSpec spec) {
    List<String> problems = new ArrayList<>();
    if (spec.template == null || spec.template.getSpec() == null) {
      problems.add("spec.template.spec is required");
      return problems;
    }
    List<Container> containers = spec.template.getSpec().getContainers();
    if (containers.stream().noneMatch(c -> WorkerPods.TRAINER.equals(c.getName()))) {
      problems.add(TrainingJobSpec.TRAINER_MISSING);
    }
    if (Stream.concat(containers.stream(), spec.template.getSpec().getInitContainers().stream())
        .anyMatch(c -> WorkerPods.SIDECAR.equals(c.getName()))) {
      problems.add(TrainingJobSpec.SIDECAR_NAME_RESERVED);
    }
    return problems;
  }
}
