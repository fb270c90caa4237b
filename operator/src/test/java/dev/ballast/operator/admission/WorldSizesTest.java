package dev.ballast.operator.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.operator.TestJobs;
import dev.ballast.operator.api.ParallelismSpec;
import org.junit.jupiter.api.Test;

class WorldSizesTest {
  @Test
  void picksTheLargestSizeHoldingWholeExpertGroups() {
    var spec = TestJobs.job("j", 2, 8, 4).getSpec();
    spec.parallelism = new ParallelismSpec(16, 1); // 4 workers × 4 GPUs per group
    assertThat(WorldSizes.largestValid(7, spec)).isEqualTo(4);
    assertThat(WorldSizes.largestValid(8, spec)).isEqualTo(8);
    assertThat(WorldSizes.largestValid(20, spec)).isEqualTo(8); // never above workers.max
    assertThat(WorldSizes.largestValid(3, spec)).isZero();
    assertThat(WorldSizes.explain(3, spec)).contains("no worker count between 2 and 3 holds whole groups of 16");
  }
}
