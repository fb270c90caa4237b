package dev.ballast.operator.validate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import org.junit.jupiter.api.Test;

class SpecValidatorTest {
  @Test
  void aJobWithATrainerContainerIsValid() {
    assertThat(SpecValidator.validate(TestJobs.job("j", 1, 2, 8).getSpec())).isEmpty();
  }

  @Test
  void problemsNameTheFieldAndWhatIsWrong() {
    var spec = TestJobs.job("j", 1, 2, 8).getSpec();
    spec.template.getSpec().getContainers().get(0).setName("main");
    spec.template.getSpec().getInitContainers().add(new ContainerBuilder().withName("ballast-sidecar").build());
    spec.template.getSpec().setNodeName("gpu-1");
    assertThat(SpecValidator.validate(spec)).containsExactly(
        "spec.template.spec.containers needs a container named \"trainer\" (it gets the GPUs and the rendezvous environment)",
        "the container name \"ballast-sidecar\" is reserved for the Ballast sidecar",
        "spec.template.spec.nodeName must be empty: Ballast chooses the nodes of the whole gang");
  }
}
