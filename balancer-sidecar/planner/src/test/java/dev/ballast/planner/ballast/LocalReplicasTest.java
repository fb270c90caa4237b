package dev.ballast.planner.ballast;

import dev.ballast.planner.Fixtures;
import dev.ballast.planner.model.GroupTopology;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LocalReplicasTest {
    /** Two nodes of two GPUs, 8 experts; node 1 (GPUs 2, 3) sends expert 0 (home GPU 0) 300 and expert 1 100 tokens. */
    private static final GroupTopology GT = Fixtures.group(4, 2, 1);

    private static LayerDemand demand() {
        long[] counts = new long[4 * 8];
        counts[2 * 8] = 200;
        counts[3 * 8] = 100;
        counts[3 * 8 + 1] = 100;
        return LayerDemand.of(GT, counts, 8);
    }

    @Test
    void replicasGoToTheNodeThatSendsTheTokensBiggestSavingFirst() {
        SheddingState st = SheddingState.fresh(4, 8, 1, demand());
        LocalPicks picks = new LocalPicks(4);
        assertThat(LocalReplicas.place(GT, st, demand(), 1, 1, 0, picks, null)).isEqualTo(1);
        assertThat(st.copyCount(0)).isEqualTo(2);
        assertThat(GT.nodeIndex(st.copyGpu(0, 1))).isEqualTo(1);
        // The new copy takes its node's tokens from the home.
        assertThat(st.copyLoad(0, 1)).isEqualTo(300);
        assertThat(st.copyCount(1)).isEqualTo(1);
        assertThat(picks.recorded()).isTrue();
        assertThat(picks.count()).isEqualTo(1);
    }

    @Test
    void pairsThatSaveTooLittleAreSkippedAndTheLimitHolds() {
        SheddingState st = SheddingState.fresh(4, 8, 1, demand());
        // 150 bytes to beat: expert 0's 300 tokens do, expert 1's 100 do not.
        assertThat(LocalReplicas.place(GT, st, demand(), 5, 1, 150, null, null)).isEqualTo(1);
        assertThat(st.copyCount(1)).isEqualTo(1);
        SheddingState all = SheddingState.fresh(4, 8, 1, demand());
        assertThat(LocalReplicas.place(GT, all, demand(), 5, 1, 0, null, null)).isEqualTo(2);
    }

    @Test
    void aReplicaTheParameterBudgetRefusesIsNotOpened() {
        SheddingState st = SheddingState.fresh(4, 8, 1, demand());
        // A budget with no room on any link for a replica outside its home's node.
        ParameterBudget none = new ParameterBudget(GT, 1, 1, 0);
        assertThat(LocalReplicas.place(GT, st, demand(), 5, 1, 0, null, none)).isZero();
        assertThat(st.copyCount(0)).isEqualTo(1);
    }
}
