package dev.ballast.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.LimitRangeBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The container defaults the LimitRanger admission plugin gives a pod, as the quota will count it. */
class LimitRangeDefaultsTest {
  static LimitRange range(String name, String type, Map<String, String> defaults, Map<String, String> requests) {
    var item = new io.fabric8.kubernetes.api.model.LimitRangeItemBuilder().withType(type);
    defaults.forEach((k, v) -> item.addToDefault(k, new Quantity(v)));
    requests.forEach((k, v) -> item.addToDefaultRequest(k, new Quantity(v)));
    return new LimitRangeBuilder().withNewMetadata().withName(name).endMetadata().withNewSpec()
        .addToLimits(item.build()).endSpec().build();
  }

  @Test
  void missingRequestsAndLimitsAreFilledAndWhatIsSetIsKept() {
    PodSpec spec = new PodSpecBuilder().withContainers(
        new ContainerBuilder().withName("bare").build(),
        new ContainerBuilder().withName("limited").withNewResources().addToLimits("cpu", new Quantity("2"))
            .endResources().build(),
        new ContainerBuilder().withName("asks").withNewResources().addToRequests("memory", new Quantity("1Gi"))
            .endResources().build()).build();
    var defaults = range("defaults", "Container", Map.of("cpu", "3", "memory", "8Gi"),
        Map.of("cpu", "1", "memory", "4Gi"));
    var later = range("later", "Container", Map.of(), Map.of("cpu", "9", "ephemeral-storage", "1Gi"));
    var podLevel = range("pods", "Pod", Map.of("cpu", "64"), Map.of());

    PodSpec defaulted = LimitRangeDefaults.apply(spec, List.of(later, podLevel, defaults));
    var bare = defaulted.getContainers().get(0).getResources();
    assertThat(bare.getRequests()).containsEntry("cpu", new Quantity("1")).containsEntry("memory", new Quantity("4Gi"))
        .as("a later range fills only what is still missing").containsEntry("ephemeral-storage", new Quantity("1Gi"));
    assertThat(bare.getLimits()).containsEntry("cpu", new Quantity("3")).containsEntry("memory", new Quantity("8Gi"));
    var limited = defaulted.getContainers().get(1).getResources();
    assertThat(limited.getLimits()).containsEntry("cpu", new Quantity("2"));
    assertThat(limited.getRequests()).as("its limit is its request already").doesNotContainKey("cpu");
    assertThat(defaulted.getContainers().get(2).getResources().getRequests())
        .containsEntry("memory", new Quantity("1Gi"));
    assertThat(spec.getContainers().get(0).getResources()).as("the input is left as it was").isNull();
    assertThat(LimitRangeDefaults.apply(spec, List.of(podLevel))).as("no Container range").isSameAs(spec);
  }
}
