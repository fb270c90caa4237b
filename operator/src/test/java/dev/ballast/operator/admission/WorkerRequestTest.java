package dev.ballast.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.TrainingJob;
import dev.ballast.operator.config.OperatorSettings;
import dev.ballast.operator.desired.WorkerPods;
import dev.ballast.operator.observe.PodRequests;
import dev.ballast.operator.placement.GangRequest;
import dev.ballast.operator.placement.GpuNode;
import dev.ballast.operator.placement.Resources;
import dev.ballast.operator.world.Seat;
import dev.ballast.operator.world.World;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkerRequestTest {
  final TrainingJob job = TestJobs.job("olmoe", 2, 4, 8);

  WorkerRequestTest() {
    var podSpec = job.getSpec().template.getSpec();
    podSpec.getContainers().get(0).setResources(new io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder()
        .addToRequests(Map.of("cpu", new Quantity("12"), "memory", new Quantity("64Gi"))).build());
    podSpec.getContainers().add(new ContainerBuilder().withName("profiler").withNewResources()
        .addToLimits("nvidia.com/gpu", new Quantity("1")).endResources().build());
    podSpec.getInitContainers().add(new ContainerBuilder().withName("fetch-data").withNewResources()
        .addToRequests("cpu", new Quantity("16")).endResources().build());
    podSpec.setNodeSelector(Map.of("pool", "training"));
    podSpec.setAffinity(new AffinityBuilder().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
        .addNewNodeSelectorTerm().addNewMatchExpression().withKey("gpu").withOperator("In").withValues("h100")
        .endMatchExpression().endNodeSelectorTerm()
        .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().build());
  }

  @Test
  void aWorkerRequestsWhatItsPodWillRequestPlusAPodSlot() {
    GangRequest request = WorkerRequest.of(job.getSpec());
    // trainer 8 GPUs + profiler 1; cpu: the init container's 16 (it runs before Ballast's sidecar, which is
    // appended after the template's init containers) exceeds the trainer's 12 + the sidecar's 0.1
    assertThat(request.perWorker()).isEqualTo(new Resources(Map.of(Resources.GPU, 9L, Resources.CPU, 16_000L,
        Resources.MEMORY, (64L << 30) + (256L << 20), Resources.PODS, 1L)));

    World world = new World(1, List.of(new Seat(0, 0, "n", null, null)));
    var built = WorkerPods.build(job, world, world.seats().get(0), true, OperatorSettings.defaults());
    assertThat(request.perWorker()).as("the same as the pod admission creates")
        .isEqualTo(PodRequests.of(built.getSpec()).plus(Resources.of(Resources.PODS, 1)));
  }

  @Test
  void theTemplatesNodeSelectorAndRequiredAffinityChooseTheNodes() {
    GangRequest request = WorkerRequest.of(job.getSpec());
    assertThat(request.selection().matches(node(Map.of("pool", "training", "gpu", "h100")))).isTrue();
    assertThat(request.selection().matches(node(Map.of("pool", "training", "gpu", "a100")))).isFalse();
    assertThat(request.selection().matches(node(Map.of("gpu", "h100")))).isFalse();
    assertThat(request.tolerations()).singleElement().satisfies(t -> assertThat(t.key()).isEqualTo("nvidia.com/gpu"));
  }

  static GpuNode node(Map<String, String> labels) {
    return new GpuNode("n", Resources.gpus(8), true, false, List.of(), null, null, labels);
  }
}
