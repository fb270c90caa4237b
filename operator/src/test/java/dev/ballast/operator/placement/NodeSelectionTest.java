package dev.ballast.operator.placement;

import static dev.ballast.operator.placement.Clusters.nodesOf;
import static dev.ballast.operator.placement.Clusters.reason;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** nodeSelector and required node affinity, matched as the scheduler matches them. */
class NodeSelectionTest {
  static GpuNode labelled(String name, Map<String, String> labels) {
    return new GpuNode(name, Resources.gpus(8), true, false, List.of(), null, null, labels);
  }

  static final GpuNode H100 = labelled("h100", Map.of("gpu", "h100", "generation", "9", "pool", "training"));
  static final GpuNode A100 = labelled("a100", Map.of("gpu", "a100", "generation", "8"));
  static final GpuNode BARE = labelled("bare", Map.of());

  static LabelRequirement req(String key, String op, String... values) {
    return new LabelRequirement(key, op, List.of(values));
  }

  static boolean matches(GpuNode node, LabelRequirement... expressions) {
    return new NodeSelection(Map.of(), List.of(new AffinityTerm(List.of(expressions), List.of()))).matches(node);
  }

  @Test
  void everyOperatorMatchesAsInKubernetes() {
    assertThat(matches(H100, req("gpu", "In", "h100", "h200"))).isTrue();
    assertThat(matches(A100, req("gpu", "In", "h100", "h200"))).isFalse();
    assertThat(matches(A100, req("gpu", "NotIn", "h100"))).isTrue();
    assertThat(matches(BARE, req("gpu", "NotIn", "h100"))).as("NotIn matches a node without the label").isTrue();
    assertThat(matches(H100, req("pool", "Exists"))).isTrue();
    assertThat(matches(A100, req("pool", "Exists"))).isFalse();
    assertThat(matches(A100, req("pool", "DoesNotExist"))).isTrue();
    assertThat(matches(H100, req("generation", "Gt", "8"))).isTrue();
    assertThat(matches(A100, req("generation", "Gt", "8"))).isFalse();
    assertThat(matches(A100, req("generation", "Lt", "9"))).isTrue();
    assertThat(matches(BARE, req("generation", "Lt", "9"))).as("Lt needs the label").isFalse();
    assertThat(matches(H100, req("gpu", "Gt", "8"))).as("a label value that is not an integer").isFalse();
    assertThat(matches(H100, req("gpu", "Sometimes", "h100"))).as("an unknown operator matches nothing").isFalse();
    assertThat(matches(H100, req("gpu", "In", "h100"), req("pool", "DoesNotExist")))
        .as("every expression of a term must hold").isFalse();
  }

  @Test
  void termsAreAlternativesAndAnEmptyTermMatchesNothing() {
    var either = new NodeSelection(Map.of(), List.of(
        new AffinityTerm(List.of(req("gpu", "In", "h100")), List.of()),
        new AffinityTerm(List.of(req("gpu", "In", "a100")), List.of())));
    assertThat(either.matches(H100)).isTrue();
    assertThat(either.matches(A100)).isTrue();
    assertThat(either.matches(BARE)).isFalse();
    assertThat(new NodeSelection(Map.of(), List.of(new AffinityTerm(List.of(), List.of()))).matches(H100)).isFalse();
  }

  @Test
  void matchFieldsSelectByNodeName() {
    var byName = new NodeSelection(Map.of(), List.of(new AffinityTerm(List.of(), List.of(req("metadata.name", "In", "a100")))));
    assertThat(byName.matches(A100)).isTrue();
    assertThat(byName.matches(H100)).isFalse();
    var notByName = new NodeSelection(Map.of(), List.of(new AffinityTerm(List.of(), List.of(req("metadata.name", "NotIn", "a100")))));
    assertThat(notByName.matches(H100)).isTrue();
    var otherField = new NodeSelection(Map.of(), List.of(new AffinityTerm(List.of(), List.of(req("spec.unschedulable", "In", "false")))));
    assertThat(otherField.matches(H100)).as("only metadata.name is a node field").isFalse();
  }

  @Test
  void nodeSelectorAndAffinityMustBothHold() {
    var both = new NodeSelection(Map.of("pool", "training"),
        List.of(new AffinityTerm(List.of(req("gpu", "In", "a100")), List.of())));
    assertThat(both.matches(H100)).isFalse();
    assertThat(new NodeSelection(Map.of("pool", "training"), null).matches(H100)).isTrue();
    assertThat(new NodeSelection(Map.of("pool", "training"), null).matches(A100)).isFalse();
  }

  @Test
  void placementOffersOnlySelectedNodesAndCountsTheOthers() {
    var h100Only = new GangRequest(1, 3, Resources.gpus(8), List.of(),
        new NodeSelection(Map.of(), List.of(new AffinityTerm(List.of(req("gpu", "In", "h100")), List.of()))));
    List<GpuNode> nodes = List.of(H100, A100, BARE);
    assertThat(nodesOf(GangPlacer.place(nodes, Map.of(), h100Only))).containsExactly("h100");
    assertThat(reason(GangPlacer.place(nodes, Map.of(), h100Only.withWorkers(2, 2)))).isEqualTo(
        "needs 2 workers × 8 GPUs (workers.min 2, workers.max 2) but only 1 fits: 1 of 3 GPU nodes can host a worker;"
            + " excluded: 2 nodes do not match the template's nodeSelector or required node affinity");
  }
}
