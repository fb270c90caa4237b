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
  void problemsOfJobsStoredBeforeTheCrdRulesNameTheFieldAndWhatIsWrong() {
    var spec = TestJobs.job("j", 1, 2, 8).getSpec();
    spec.template.getSpec().getContainers().get(0).setName("main");
    spec.template.getSpec().getInitContainers().add(new ContainerBuilder().withName("ballast-sidecar").build());
    assertThat(SpecValidator.validate(spec)).containsExactly(
        "template.spec.containers needs a container named \"trainer\": Ballast gives it the GPUs and the"
            + " rendezvous environment",
        "the container name \"ballast-sidecar\" is reserved for the sidecar Ballast adds to every worker;"
            + " rename the template's container");
  }
}
