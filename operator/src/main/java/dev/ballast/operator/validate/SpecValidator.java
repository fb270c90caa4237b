package dev.ballast.operator.validate;

import dev.ballast.operator.api.TrainingJobSpec;
import dev.ballast.operator.desired.WorkerPods;
import io.fabric8.kubernetes.api.model.Container;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks the API server's schema and CEL rules cannot express cheaply (rules over the embedded pod
 * template). A job with problems is reported in its status and left alone.
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
      problems.add("spec.template.spec.containers needs a container named \"" + WorkerPods.TRAINER
          + "\" (it gets the GPUs and the rendezvous environment)");
    }
    boolean clash = spec.template.getSpec().getInitContainers().stream()
        .anyMatch(c -> WorkerPods.SIDECAR.equals(c.getName()));
    if (clash || containers.stream().anyMatch(c -> WorkerPods.SIDECAR.equals(c.getName()))) {
      problems.add("the container name \"" + WorkerPods.SIDECAR + "\" is reserved for the Ballast sidecar");
    }
    if (spec.template.getSpec().getNodeName() != null) {
      problems.add("spec.template.spec.nodeName must be empty: Ballast chooses the nodes of the whole gang");
    }
    return problems;
  }
}
