package dev.ballast.planner.model;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ShardLayoutTest {
    @Test
    void aNodeShardedExpertIsSplitOverItsHomeNodeOnly() {
        // 6 GPUs on nodes 0,0,0,1,1,1; 6 experts, so expert e's home is GPU e.
        int[] node = {0, 0, 0, 1, 1, 1};
        LayerPlacement p = LayerPlacement.staticLayout(6, 6)
                .withNodeShards(new boolean[] {false, false, false, false, true, false});
        ShardLayout four = ShardLayout.of(p, 4, node, 1000);
        long covered = 0;
        for (int g = 0; g < 6; g++) {
            assertThat(four.owns(g)).isEqualTo(g >= 3);
            assertThat(four.offset(g + 1)).isGreaterThanOrEqualTo(four.offset(g));
            covered += four.shardBytes(g);
        }
        assertThat(covered).isEqualTo(1000);
        assertThat(four.shardBytes(0)).isZero();
        assertThat(four.shardBytes(3)).isEqualTo(333);
        assertThat(four.offset(4)).isEqualTo(333);
        assertThat(four.offset(6)).isEqualTo(1000);
        assertThat(ShardLayout.of(p, 1, node, 1000)).isEqualTo(new ShardLayout(6, 1000));
        assertThat(four).isNotEqualTo(new ShardLayout(6, 1000));
    }

    @Test
    void nodeShardsAreOptionalAndValidated() {
        LayerPlacement s = LayerPlacement.staticLayout(2, 4);
        assertThat(s.withNodeShards(new boolean[4])).isEqualTo(s);
        assertThat(s.withNodeShards(new boolean[] {true, false, false, false})).isNotEqualTo(s);
        assertThatThrownBy(() -> s.withNodeShards(new boolean[3])).hasMessageContaining("3 entries for 4 experts");
        assertThatThrownBy(() -> ShardLayout.of(s, 0, new int[3], 10)).hasMessageContaining("node table of 3 ranks");
    }
}
