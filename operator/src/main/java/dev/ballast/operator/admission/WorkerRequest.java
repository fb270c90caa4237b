package dev.ballast.operator.admission;

import dev.ballast.operator.api.TrainingJobSpec;
import dev.ballast.operator.desired.WorkerPods;
import dev.ballast.operator.observe.ClusterCapacity;
import dev.ballast.operator.placement.AffinityTerm;
import dev.ballast.operator.placement.GangPlacer;
import dev.ballast.operator.placement.GangRequest;
import dev.ballast.operator.placement.GpuNode;
import dev.ballast.operator.placement.LabelRequirement;
import dev.ballast.operator.placement.NodeSelection;
import dev.ballast.operator.placement.Placement;
import dev.ballast.operator.placement.Toleration;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.Collection;
import java.util.List;
import java.util.Map;

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

  /**
   * The nodes of {@code nodes} eligible for a worker of {@code spec} (Ready, not cordoned, selected, tolerated, large
   * enough when empty); none for a spec that cannot be run (its own reconcile says why).
   */
  public static List<GpuNode> eligibleNodes(TrainingJobSpec spec, Collection<GpuNode> nodes) {
    GangRequest request;
    try {
      request = of(spec);
    } catch (IllegalArgumentException e) {
      return List.of();
    }
    return nodes.stream().filter(n -> GangPlacer.eligible(n, request)).toList();
  }

  /**
   * The gang of {@code spec}'s workers.min when it would fit {@code nodes} were they empty; null when it never could,
   * or the spec cannot be run: no other job can make room for it.
   */
  public static GangRequest minimumEverFitting(TrainingJobSpec spec, List<GpuNode> nodes) {
    GangRequest wanted;
    try {
      wanted = of(spec).withWorkers(spec.workers.min, spec.workers.min);
    } catch (IllegalArgumentException e) {
      return null;
    }
    return GangPlacer.place(nodes, Map.of(), wanted) instanceof Placement.Placed ? wanted : null;
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
