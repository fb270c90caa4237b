package dev.ballast.operator.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.config.OperatorConfig;
import dev.ballast.operator.reconcile.TrainingJobReconciler;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.kubernetes.client.WithKubernetesTestServer;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** The packaged application starts: CDI wiring, configuration mapping and the controller registration. */
@QuarkusTest
@WithKubernetesTestServer(crud = true)
class OperatorAppTest {
  @Inject TrainingJobReconciler reconciler;
  @Inject OperatorConfig config;

  @Test
  void startsWithTheReconcilerAndDefaults() {
    assertThat(reconciler).isNotNull();
    assertThat(config.settings().sidecarPort()).isEqualTo(8470);
    assertThat(config.settings().masterPort()).isEqualTo(29500);
  }
}
