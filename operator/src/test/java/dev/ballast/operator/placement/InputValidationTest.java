package dev.ballast.operator.placement;

import static dev.ballast.operator.placement.Clusters.gang;
import static dev.ballast.operator.placement.Clusters.node;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bad input fails with a message naming the field or node at fault. */
class InputValidationTest {

  @Test
  void requestFieldsAreChecked() {
    assertThatThrownBy(() -> gang(0, 1, 8)).hasMessage("workers.min must be >= 1, got 0");
    assertThatThrownBy(() -> gang(4, 2, 8)).hasMessage("workers.max (2) must be >= workers.min (4)");
    assertThatThrownBy(() -> gang(1, 1, 0)).hasMessage("gpusPerWorker must be >= 1, got 0");
  }

  @Test
  void nodesAndUsageAreChecked() {
    assertThatThrownBy(() -> node("a", -1, null, null)).hasMessage("resource nvidia.com/gpu: amount -1 < 0");
    assertThatThrownBy(() -> node(" ", 8, null, null)).hasMessage("node name must not be empty");
    List<GpuNode> twice = List.of(node("a", 8, null, null), node("a", 8, "D", null));
    assertThatThrownBy(() -> GangPlacer.place(twice, Map.of(), gang(1, 1, 8))).hasMessage("node a is listed twice");
    assertThatThrownBy(() -> Resources.of(Resources.CPU, -2)).hasMessage("resource cpu: amount -2 < 0");
  }
}
