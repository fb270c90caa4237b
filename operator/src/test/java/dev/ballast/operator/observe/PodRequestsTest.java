package dev.ballast.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.placement.Resources;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The effective request, as Kubernetes' resource helpers (PodRequests) compute it. */
class PodRequestsTest {
  static Container container(String name, String cpu, String restartPolicy) {
    return new ContainerBuilder().withName(name).withRestartPolicy(restartPolicy)
        .withNewResources().addToRequests("cpu", new Quantity(cpu)).endResources().build();
  }

  static long cpu(PodSpec spec) {
    return PodRequests.of(spec).get(Resources.CPU);
  }

  @Test
  void appContainersAndNativeSidecarsAddUp() {
    PodSpec spec = new PodSpecBuilder()
        .withContainers(container("a", "1", null), container("b", "500m", null))
        .withInitContainers(container("sidecar", "250m", "Always"))
        .build();
    assertThat(cpu(spec)).isEqualTo(1750);
  }

  @Test
  void aLargerInitContainerSetsTheRequestWithTheSidecarsStartedBeforeIt() {
    // init "setup" runs after sidecar s1 (both count while it runs) and before s2
    PodSpec spec = new PodSpecBuilder()
        .withContainers(container("app", "1", null))
        .withInitContainers(container("s1", "1", "Always"), container("setup", "3", null), container("s2", "1", "Always"))
        .build();
    assertThat(cpu(spec)).as("max(app 1 + s1 1 + s2 1, s1 1 + setup 3)").isEqualTo(4000);
    PodSpec small = new PodSpecBuilder()
        .withContainers(container("app", "4", null))
        .withInitContainers(container("setup", "3", null))
        .build();
    assertThat(cpu(small)).isEqualTo(4000);
  }

  @Test
  void aLimitWithoutARequestIsTheRequest() {
    PodSpec spec = new PodSpecBuilder().withContainers(new ContainerBuilder().withName("t").withNewResources()
        .addToLimits(Map.of("nvidia.com/gpu", new Quantity("8"), "memory", new Quantity("64Gi"), "cpu", new Quantity("4")))
        .addToRequests("cpu", new Quantity("2")).endResources().build()).build();
    assertThat(PodRequests.of(spec)).isEqualTo(new Resources(Map.of(
        Resources.GPU, 8L, Resources.MEMORY, 64L << 30, Resources.CPU, 2000L)));
  }

  @Test
  void podLevelRequestsReplaceTheContainersSumAndOverheadIsAdded() {
    PodSpec spec = new PodSpecBuilder()
        .withContainers(container("a", "1", null), container("b", "1", null))
        .withNewResources().addToRequests("cpu", new Quantity("6")).endResources()
        .withOverhead(Map.of("cpu", new Quantity("250m"), "memory", new Quantity("120Mi")))
        .build();
    assertThat(PodRequests.of(spec)).isEqualTo(new Resources(Map.of(
        Resources.CPU, 6250L, Resources.MEMORY, 120L << 20)));
  }

  @Test
  void fractionsRoundUpToTheSchedulersUnits() {
    PodSpec spec = new PodSpecBuilder().withContainers(new ContainerBuilder().withName("t").withNewResources()
        .addToRequests(Map.of("cpu", new Quantity("0.0005"), "memory", new Quantity("1.5"))).endResources().build())
        .build();
    assertThat(PodRequests.of(spec)).isEqualTo(new Resources(Map.of(Resources.CPU, 1L, Resources.MEMORY, 2L)));
  }

  @Test
  void limitsSumTheContainersLimitsAndTheOverheadAddsOnlyWhereALimitIsSet() {
    PodSpec spec = new PodSpecBuilder()
        .withContainers(new ContainerBuilder().withName("a").withNewResources()
            .addToLimits(Map.of("cpu", new Quantity("2"), "nvidia.com/gpu", new Quantity("8")))
            .addToRequests("memory", new Quantity("1Gi")).endResources().build(),
            new ContainerBuilder().withName("b").withNewResources().addToLimits("cpu", new Quantity("500m"))
                .endResources().build())
        .withInitContainers(new ContainerBuilder().withName("setup").withNewResources()
            .addToLimits("cpu", new Quantity("4")).endResources().build())
        .withOverhead(Map.of("cpu", new Quantity("250m"), "memory", new Quantity("120Mi")))
        .build();
    assertThat(PodRequests.limits(spec)).as("max(2 + 0.5, init 4) + overhead; memory has no limit")
        .isEqualTo(new Resources(Map.of(Resources.CPU, 4250L, Resources.GPU, 8L)));
  }
}
