package dev.ballast.operator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClass;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class PrioritiesTest {
  static PriorityClass priorityClass(String name, int value, boolean globalDefault) {
    return new PriorityClassBuilder().withNewMetadata().withName(name).endMetadata().withValue(value)
        .withGlobalDefault(globalDefault).build();
  }

  static PodTemplateSpec template(String priorityClassName) {
    return new PodTemplateSpecBuilder().withNewSpec().withPriorityClassName(priorityClassName).endSpec().build();
  }

  @Test
  void aTemplateGetsItsClassesValueTheGlobalDefaultWithoutOneAndZeroForAnUnknownClass() {
    var withDefault = Priorities.of(List.of(priorityClass("high", 1000, false), priorityClass("batch", 5, true)));
    assertThat(withDefault.of(template("high"))).isEqualTo(1000);
    assertThat(withDefault.of(template(null))).isEqualTo(5);
    assertThat(withDefault.of(template(""))).isEqualTo(5);
    assertThat(withDefault.of(template("gone"))).isZero();
    assertThat(Priorities.of(List.of(priorityClass("high", 1000, false))).of(template(null))).isZero();
    assertThat(Priorities.NONE.of(template("high"))).isZero();
  }

  @Test
  void aClassWithPreemptionPolicyNeverKeepsItsJobsFromPreempting() {
    var never = new PriorityClassBuilder().withNewMetadata().withName("batch-never").endMetadata().withValue(100)
        .withPreemptionPolicy("Never").withGlobalDefault(true).build();
    var classes = Priorities.of(List.of(priorityClass("high", 1000, false), never));
    assertThat(classes.mayPreempt(template("high"))).isTrue();
    assertThat(classes.mayPreempt(template("batch-never"))).isFalse();
    assertThat(classes.mayPreempt(template(null))).as("the global default's policy").isFalse();
    assertThat(classes.of(template(null))).isEqualTo(100);
    assertThat(Priorities.NONE.mayPreempt(template(null))).isTrue();
  }

  static PriorityClass withMinRuntime(String name, String seconds) {
    return new PriorityClassBuilder().withNewMetadata().withName(name)
        .addToAnnotations(Priorities.MIN_RUNTIME, seconds).endMetadata().withValue(10).build();
  }

  @Test
  void aClassesMinimumRuntimeIsReadFromItsAnnotationAndAValueThatIsNoWholeNumberOfSecondsIsNamedAndIgnored() {
    var classes = Priorities.of(List.of(withMinRuntime("guarded", "600"), withMinRuntime("zero", "0"),
        withMinRuntime("typo", "10m"), withMinRuntime("negative", "-5"), priorityClass("plain", 10, true)));
    assertThat(classes.minRuntime(template("guarded"))).isEqualTo(Duration.ofMinutes(10));
    assertThat(classes.minRuntime(template("zero"))).isZero();
    assertThat(classes.minRuntime(template("typo"))).isZero();
    assertThat(classes.minRuntime(template(null))).as("the global default has none").isZero();
    assertThat(classes.problems()).containsExactly(
        "PriorityClass negative: annotation ballast.dev/min-runtime-seconds is \"-5\", not a whole number of seconds"
            + " (0 or more); its jobs get no minimum runtime",
        "PriorityClass typo: annotation ballast.dev/min-runtime-seconds is \"10m\", not a whole number of seconds"
            + " (0 or more); its jobs get no minimum runtime");
    assertThat(Priorities.NONE.minRuntime(template("guarded"))).isZero();
  }
}
