package dev.ballast.operator.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.status.BalancerStatus;
import dev.ballast.contracts.status.BalancerStatusJson;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.lang.reflect.Field;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The CRD's status.balancer schema and the contract the balancer writes must not drift apart. */
class BalancerStatusSchemaTest {
  @Test
  void declaresExactlyTheContractsFields() {
    assertThat(Arrays.stream(BalancerStatusSchema.class.getFields()).map(Field::getName))
        .containsExactlyInAnyOrderElementsOf(BalancerStatus.FIELDS);
    assertThat(Arrays.stream(BalancerMeasuredSchema.class.getFields()).map(Field::getName))
        .containsExactlyInAnyOrderElementsOf(BalancerStatus.MEASURED_FIELDS);
    assertThat(Arrays.stream(BalancerStragglerSchema.class.getFields()).map(Field::getName))
        .containsExactlyInAnyOrderElementsOf(BalancerStatus.STRAGGLER_FIELDS);
  }

  @Test
  void whatTheBalancerWritesReadsBackUnchanged() {
    String written = BalancerStatusJson.encode(new BalancerStatus("4.9", 192, 880, 1.42, 1.03, 1.2,
        new BalancerStatus.StepHeartbeat(4, 900, "2026-12-03T19:00:00Z"), "",
        new BalancerStatus.FirstPlan(4, BalancerStatus.FROM_HISTORY, 0),
        new BalancerStatus.Measured(1.31, 1.04, 0.52, 0.41, 0.3, 0.22),
        java.util.List.of(new BalancerStatus.Straggler(3, "olmoe-g4-w1", BalancerStatus.Straggler.SLOW))));
    BalancerStatusSchema read = Serialization.unmarshal(written, BalancerStatusSchema.class);
    assertThat(Json.parse(Serialization.asJson(read))).isEqualTo(Json.parse(written));
  }
}
