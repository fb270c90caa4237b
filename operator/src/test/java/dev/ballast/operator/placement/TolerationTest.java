package dev.ballast.operator.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TolerationTest {
  private static final Taint RESERVED = new Taint("gpu", "reserved", Taint.NO_SCHEDULE);
  private static final Taint RESERVED_EXEC = new Taint("gpu", "reserved", Taint.NO_EXECUTE);

  @Test
  void emptyKeyWithExistsToleratesEverything() {
    Toleration all = new Toleration(null, "Exists", null, null);
    assertThat(all.tolerates(RESERVED)).isTrue();
    assertThat(all.tolerates(RESERVED_EXEC)).isTrue();
    assertThat(all.tolerates(new Taint("other", null, Taint.NO_EXECUTE))).isTrue();
  }

  @Test
  void emptyKeyWithExistsAndAnEffectToleratesOnlyThatEffect() {
    Toleration noSchedule = new Toleration("", "Exists", "", Taint.NO_SCHEDULE);
    assertThat(noSchedule.tolerates(RESERVED)).isTrue();
    assertThat(noSchedule.tolerates(RESERVED_EXEC)).isFalse();
  }

  @Test
  void existsIgnoresTheValueButNotTheKey() {
    Toleration gpu = new Toleration("gpu", "Exists", null, null);
    assertThat(gpu.tolerates(new Taint("gpu", "anything", Taint.NO_SCHEDULE))).isTrue();
    assertThat(gpu.tolerates(new Taint("gpu", null, Taint.NO_EXECUTE))).isTrue();
    assertThat(gpu.tolerates(new Taint("gpux", "reserved", Taint.NO_SCHEDULE))).isFalse();
  }

  @Test
  void equalAndEmptyOperatorCompareTheValue() {
    assertThat(new Toleration("gpu", "Equal", "reserved", null).tolerates(RESERVED)).isTrue();
    assertThat(new Toleration("gpu", null, "reserved", null).tolerates(RESERVED)).isTrue();
    assertThat(new Toleration("gpu", "Equal", "other", null).tolerates(RESERVED)).isFalse();
    // A taint without a value matches an Equal toleration without a value.
    assertThat(new Toleration("gpu", "Equal", null, null).tolerates(new Taint("gpu", null, Taint.NO_SCHEDULE))).isTrue();
  }

  @Test
  void anEffectMustMatchWhenGiven() {
    Toleration exec = new Toleration("gpu", "Equal", "reserved", Taint.NO_EXECUTE);
    assertThat(exec.tolerates(RESERVED_EXEC)).isTrue();
    assertThat(exec.tolerates(RESERVED)).isFalse();
  }

  @Test
  void unknownOperatorToleratesNothing() {
    assertThat(new Toleration("gpu", "Gt", "reserved", null).tolerates(RESERVED)).isFalse();
  }

  @Test
  void taintsAreValidated() {
    assertThatThrownBy(() -> new Taint("gpu", "x", "NoRun")).hasMessageContaining("taint gpu: effect 'NoRun'");
    assertThatThrownBy(() -> new Taint("", "x", Taint.NO_SCHEDULE)).hasMessageContaining("taint key");
    assertThat(new Taint("gpu", null, Taint.NO_SCHEDULE)).hasToString("gpu:NoSchedule");
  }
}
