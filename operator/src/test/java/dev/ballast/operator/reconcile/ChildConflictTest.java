package dev.ballast.operator.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.TrainingJob;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import org.junit.jupiter.api.Test;

class ChildConflictTest {
  final TrainingJob train = TestJobs.job("train", 1, 1, 8);

  static Service service(String ownerKind, String ownerName, String ownerUid, boolean controller) {
    var b = new ServiceBuilder().withNewMetadata().withName("train-balancer").endMetadata();
    if (ownerUid != null) {
      b.editMetadata().addNewOwnerReference().withKind(ownerKind).withName(ownerName).withUid(ownerUid)
          .withController(controller).endOwnerReference().endMetadata();
    }
    return b.build();
  }

  @Test
  void theJobsOwnChildIsNoConflict() {
    assertThat(ChildConflict.of(train, service("TrainingJob", "train", "uid-train", true))).isEmpty();
  }

  @Test
  void anotherJobsChildNamesItsHolder() {
    // jobs train and train-balancer both want Service train-balancer
    assertThat(ChildConflict.of(train, service("TrainingJob", "train-balancer", "uid-other", true)))
        .hasValueSatisfying(c -> assertThat(c.message()).isEqualTo("Service train-balancer already exists, "
            + "controlled by TrainingJob train-balancer, not by this job; rename this job or remove that Service"));
  }

  @Test
  void anObjectWithoutControllerOrOnlyReferencingTheJobIsAConflict() {
    assertThat(ChildConflict.of(train, service(null, null, null, false)))
        .hasValueSatisfying(c -> assertThat(c.holder()).isEqualTo("no controller"));
    assertThat(ChildConflict.of(train, service("TrainingJob", "train", "uid-train", false)))
        .as("an owner reference that is not the controller").isPresent();
  }
}
