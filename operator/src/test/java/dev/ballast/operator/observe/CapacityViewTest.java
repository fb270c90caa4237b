package dev.ballast.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.api.TopologySpec;
import dev.ballast.operator.desired.Labels;
import dev.ballast.operator.placement.GangPlacer;
import dev.ballast.operator.placement.GangRequest;
import dev.ballast.operator.placement.GpuNode;
import dev.ballast.operator.placement.Resources;
import dev.ballast.operator.placement.Taint;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The incremental view against the same cluster built from scratch, event by event. */
class CapacityViewTest {
  static final TopologySpec TOPOLOGY = new TopologySpec();
  static final ExistingJobs JOB = new ExistingJobs(Map.of("uid-job", "team-a"));

  static Node node(String name, int gpus, String rack, String... taints) {
    var b = new NodeBuilder().withNewMetadata().withName(name)
        .addToLabels(TopologySpec.DEFAULT_DOMAIN_LABEL, "nvl-" + name).addToLabels(TopologySpec.DEFAULT_RACK_LABEL, rack)
        .endMetadata().withNewSpec().endSpec()
        .withNewStatus().addToAllocatable("nvidia.com/gpu", new Quantity(Integer.toString(gpus)))
        .addToAllocatable("cpu", new Quantity("64")).addToAllocatable("pods", new Quantity("110"))
        .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus();
    for (String t : taints) b.editSpec().addNewTaint().withKey(t).withEffect("NoSchedule").endTaint().endSpec();
    return b.build();
  }

  /** A worker-like pod of job uid-job: gated and promised {@code promised}, or bound to {@code bound}. */
  static Pod pod(String uid, String bound, String promised, int gpus, String owner) {
    var b = new PodBuilder().withNewMetadata().withName("p-" + uid).withNamespace("team-a").withUid(uid)
        .addToLabels(Labels.WORLD_GENERATION, "1").endMetadata()
        .withNewSpec().withNodeName(bound).addNewContainer().withName("c").withNewResources()
        .addToLimits("nvidia.com/gpu", new Quantity(Integer.toString(gpus))).addToRequests("cpu", new Quantity("1"))
        .endResources().endContainer().endSpec()
        .withNewStatus().withPhase("Pending").endStatus();
    if (promised != null) b.editMetadata().addToAnnotations(Labels.ASSIGNED_NODE, promised).endMetadata();
    if (owner != null) {
      b.editMetadata().addNewOwnerReference().withApiVersion("ballast.dev/v1alpha1").withKind("TrainingJob")
          .withName("job").withUid(owner).withController(true).endOwnerReference().endMetadata();
    }
    return b.build();
  }

  static Pod withPhase(Pod p, String phase) {
    return new PodBuilder(p).editStatus().withPhase(phase).endStatus().build();
  }

  static ClusterCapacity incremental(CapacityView view, ExistingJobs jobs) {
    return view.snapshot().capacity(TOPOLOGY, jobs, Set.of(), List.of());
  }

  static ClusterCapacity fromScratch(Map<String, Node> nodes, Map<String, Pod> pods, ExistingJobs jobs) {
    return ClusterCapacity.of(List.copyOf(nodes.values()), List.copyOf(pods.values()), TOPOLOGY, jobs);
  }

  static List<GpuNode> sorted(List<GpuNode> nodes) {
    return nodes.stream().sorted(Comparator.comparing(GpuNode::name)).toList();
  }

  static void assertSame(ClusterCapacity incremental, ClusterCapacity scratch) {
    assertThat(sorted(incremental.nodes())).isEqualTo(sorted(scratch.nodes()));
    assertThat(incremental.used()).isEqualTo(scratch.used());
  }

  @Test
  void eventsInAnyOrderAndRepeatedGiveTheSameView() {
    Node a = node("a", 8, "r0");
    Pod p = pod("u1", "a", null, 4, "uid-job");
    var inOrder = new CapacityView();
    inOrder.nodeChanged(a);
    inOrder.podChanged(p);
    var reversed = new CapacityView();
    reversed.podDeleted(p); // a delete of a pod it never saw does nothing
    reversed.podChanged(p); // the pod before its node (a relist may deliver them so)
    reversed.podChanged(p); // and twice
    reversed.podReplaced(p, p);
    reversed.nodeChanged(a);
    assertSame(incremental(reversed, JOB), incremental(inOrder, JOB));
    assertThat(incremental(inOrder, JOB).used().get("a").get(Resources.GPU)).isEqualTo(4);
  }

  @Test
  void aPodMovingFromGatedToBoundKeepsOneHoldAndItsPromiseCountsOnlyWhileItsJobExists() {
    var view = new CapacityView();
    view.nodeChanged(node("a", 8, "r0"));
    Pod gated = pod("u1", null, "a", 8, "uid-job");
    view.podChanged(gated);
    assertThat(incremental(view, JOB).used().get("a").get(Resources.GPU)).isEqualTo(8);
    assertThat(incremental(view, new ExistingJobs(Map.of())).used()).as("its job is gone: the promise holds nothing")
        .doesNotContainKey("a");
    view.podChanged(pod("u2", null, "a", 8, null));
    assertThat(incremental(view, JOB).used().get("a").get(Resources.GPU)).as("a forged promise holds nothing")
        .isEqualTo(8);

    view.podChanged(pod("u1", "a", "a", 8, "uid-job")); // the scheduler bound it
    assertThat(incremental(view, new ExistingJobs(Map.of())).used().get("a").get(Resources.GPU))
        .as("a bound pod holds its node whoever owns it").isEqualTo(8);
    assertThat(view.snapshot().holds()).containsOnlyKeys("u1", "u2");
  }

  @Test
  void deletesAndFinishedPodsFreeTheirNode() {
    var view = new CapacityView();
    view.nodeChanged(node("a", 8, "r0"));
    Pod p = pod("u1", "a", null, 8, "uid-job");
    view.podChanged(p);
    view.podChanged(pod("u2", "a", null, 0, null));
    view.podChanged(withPhase(p, "Succeeded"));
    assertThat(incremental(view, JOB).used().get("a").get(Resources.GPU)).isZero();
    view.podDeleted(pod("u2", "a", null, 0, null));
    assertThat(incremental(view, JOB).used()).isEmpty();
    assertThat(view.snapshot().holds()).isEmpty();
    assertThat(view.snapshot().podsOwnedBy("uid-job")).isEmpty();

    view.nodeDeleted(node("a", 8, "r0"));
    assertThat(incremental(view, JOB).nodes()).isEmpty();
  }

  @Test
  void aNodesLabelsTaintsAndAllocatableChangesAreSeen() {
    var view = new CapacityView();
    view.nodeChanged(node("a", 8, "r0"));
    CapacitySnapshot before = view.snapshot();
    view.nodeChanged(node("a", 4, "r1", "maintenance"));
    GpuNode a = incremental(view, JOB).nodes().get(0);
    assertThat(a.rack()).isEqualTo("r1");
    assertThat(a.allocatableGpus()).isEqualTo(4);
    assertThat(a.taints()).containsExactly(new Taint("maintenance", null, "NoSchedule"));
    assertThat(before.nodes().get("a").on(TOPOLOGY).rack()).as("a snapshot handed out never changes").isEqualTo("r0");

    TopologySpec other = new TopologySpec();
    other.rackLabel = TopologySpec.DEFAULT_DOMAIN_LABEL;
    assertThat(view.snapshot().capacity(other, JOB, Set.of(), List.of()).nodes().get(0).rack())
        .as("topology follows the job's label names").isEqualTo("nvl-a");
    assertThat(incremental(view, JOB).nodes().get(0).rack()).isEqualTo("r1");

    view.nodeChanged(node("a", 0, "r1"));
    assertThat(incremental(view, JOB).nodes()).as("no GPUs left: not a GPU node").isEmpty();
  }

  @Test
  void theSnapshotIsReusedUntilSomethingChanges() {
    var view = new CapacityView();
    view.nodeChanged(node("a", 8, "r0"));
    CapacitySnapshot first = view.snapshot();
    assertThat(view.snapshot()).isSameAs(first);
    view.podDeleted(pod("nobody", "a", null, 1, null));
    assertThat(view.snapshot()).as("nothing changed").isSameAs(first);
    view.podChanged(pod("u1", "a", null, 1, null));
    assertThat(view.snapshot()).isNotSameAs(first);
    assertThat(first.holds()).isEmpty();
  }

  @Test
  void leftOutAndExtraPodsAreCountedAsFromScratch() {
    var view = new CapacityView();
    Map<String, Node> nodes = new LinkedHashMap<>();
    for (String n : List.of("a", "b")) {
      nodes.put(n, node(n, 8, "r0"));
      view.nodeChanged(nodes.get(n));
    }
    Pod own = pod("own", "a", "a", 8, "uid-job");
    Pod other = pod("other", "b", null, 2, "uid-other");
    Pod reserved = pod("reserved", null, "b", 2, "uid-job");
    view.podChanged(own);
    view.podChanged(other);
    CapacitySnapshot s = view.snapshot();
    assertThat(s.podsOwnedBy("uid-job")).containsExactly(own);
    var read = s.capacity(TOPOLOGY, JOB, Set.of("own"), List.of(reserved));
    var scratch = ClusterCapacity.of(List.copyOf(nodes.values()), List.of(other, reserved), TOPOLOGY, JOB);
    assertSame(read, scratch);
    assertThat(s.podsSummed(Set.of("own"), List.of(reserved))).as("node a (left-out pod) and the reserved pod")
        .isEqualTo(2);
    assertThat(s.podsSummed(Set.of(), List.of())).as("only bound pods: nothing is re-summed").isZero();
  }

  /**
   * Random events on random nodes and pods (added, rebound, promised, finished, deleted; nodes relabelled, tainted,
   * resized, deleted), checked after every event: the incremental view equals the view built from scratch, and so
   * does placement over it.
   */
  @Test
  void placementOverTheIncrementalViewEqualsPlacementOverAViewBuiltFromScratch() {
    for (long seed = 0; seed < 20; seed++) {
      Random r = new Random(seed);
      var view = new CapacityView();
      Map<String, Node> nodes = new LinkedHashMap<>();
      Map<String, Pod> pods = new LinkedHashMap<>();
      ExistingJobs jobs = new ExistingJobs(Map.of("uid-job", "team-a", "uid-other", "team-a"));
      List<String> owners = new ArrayList<>(List.of("uid-job", "uid-other", "uid-gone"));
      owners.add(null);
      for (int step = 0; step < 300; step++) {
        String name = "n" + r.nextInt(12);
        String uid = "u" + r.nextInt(40);
        switch (r.nextInt(6)) {
          case 0 -> {
            Node n = r.nextInt(4) == 0 ? node(name, r.nextInt(3) * 4, "r" + r.nextInt(3), "t")
                : node(name, 8, "r" + r.nextInt(3));
            nodes.put(name, n);
            view.nodeChanged(n);
          }
          case 1 -> {
            Node gone = nodes.remove(name);
            if (gone != null) view.nodeDeleted(gone);
          }
          case 2, 3 -> {
            boolean bound = r.nextBoolean();
            Pod p = pod(uid, bound ? name : null, r.nextInt(3) == 0 && bound ? null : name, 1 + r.nextInt(8),
                owners.get(r.nextInt(owners.size())));
            if (r.nextInt(8) == 0) p = withPhase(p, r.nextBoolean() ? "Succeeded" : "Failed");
            Pod old = pods.put(uid, p);
            if (old == null) {
              view.podChanged(p);
            } else {
              view.podReplaced(old, p);
            }
          }
          default -> {
            Pod gone = pods.remove(uid);
            if (gone != null) view.podDeleted(gone);
          }
        }
        ClusterCapacity incremental = incremental(view, jobs);
        ClusterCapacity scratch = fromScratch(nodes, pods, jobs);
        assertSame(incremental, scratch);
        var request = new GangRequest(1 + r.nextInt(6), 1 + r.nextInt(6) + 6, Resources.gpus(1 + r.nextInt(8)),
            List.of(), null);
        assertThat(GangPlacer.place(incremental.nodes(), incremental.used(), request))
            .as("seed %d step %d", seed, step)
            .isEqualTo(GangPlacer.place(scratch.nodes(), scratch.used(), request));
      }
    }
  }
}
