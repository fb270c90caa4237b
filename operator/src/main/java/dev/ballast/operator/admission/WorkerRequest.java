package dev.ballast.operator.admission;

import dev.ballast.operator.api.TrainingJobSpec;
import dev.ballast.operator.desired.WorkerPods;
import dev.ballast.operator.observe.ClusterCapacity;
import dev.ballast.operator.placement.AffinityTerm;
import dev.ballast.operator.placement.GangRequest;
import dev.ballast.operator.placement.LabelRequirement;
import dev.ballast.operator.placement.NodeSelection;
import dev.ballast.operator.placement.Toleration;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.List;

/**
 * What placement must find for one worker of a job, read from its pod template: the worker pod's
 * effective request (Ballast's sidecar and the trainer's GPUs included) plus a pod slot, the
 * nodeSelector and required node affinity, and the tolerations.
 */
public final class WorkerRequest {
  private WorkerRequest() {}

  public static GangRequest of(TrainingJobSpec spec) {
    PodSpec template = spec.template.getSpec() == null ? new PodSpec() : spec.template.getSpec();
    List<Toleration> tolerations = template.getTolerations().stream()
        .map(t -> new Toleration(t.getKey(), t.getOperator(), t.getValue(), t.getEffect()))
        .toList();
    return new GangRequest(spec.workers.min, spec.workers.max,
        ClusterCapacity.perPod(WorkerPods.resourceShape(spec)), tolerations, selection(template));
  }

  static NodeSelection selection(PodSpec template) {
    var affinity = template.getAffinity();
    var required = affinity == null || affinity.getNodeAffinity() == null
        ? null : affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
    List<AffinityTerm> terms = required == null ? null : required.getNodeSelectorTerms().stream()
        .map(t -> new AffinityTerm(requirements(t.getMatchExpressions()), requirements(t.getMatchFields())))
        .toList();
    return new NodeSelection(template.getNodeSelector(), terms);
  }

  private static List<LabelRequirement> requirements(List<NodeSelectorRequirement> requirements) {
    return requirements.stream().map(r -> new LabelRequirement(r.getKey(), r.getOperator(), r.getValues())).toList();
  }
}
