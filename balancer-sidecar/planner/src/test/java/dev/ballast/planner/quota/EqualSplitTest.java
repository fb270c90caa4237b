package dev.ballast.planner.quota;

import dev.ballast.planner.model.LayerPlacement;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** EPLB's runtime split: every physical replica takes 1/k of an expert's tokens, duplicates on one GPU included. */
class EqualSplitTest {
    @Test
    void twoReplicasOnOneGpuAreTwoReplicasNotOne() {
        // Expert 0 has three physical replicas: two on GPU 0, one on GPU 1. Expert 1 lives on GPU 1 alone.
        LayerPlacement p = LayerPlacement.ofPhysicalSlots(2, new int[][] {{0, 0}, {0, 1}});
        assertThat(p.copies(0)).isEqualTo(2);
        assertThat(p.physicalReplicas(0)).isEqualTo(3);
        assertThat(p.replicas(p.copyIndex(0, 0))).isEqualTo(2);
        long[] counts = {300, 0, 300, 50}; // source 0: 300 for expert 0; source 1: 300 for expert 0, 50 for expert 1
        QuotaResult r = EqualSplit.apply(p, counts);
        assertThat(r.gpuLoad(0)).isEqualTo(400); // 2/3 of 600, not the de-duplicated 1/2
        assertThat(r.gpuLoad(1)).isEqualTo(250);
    }

    @Test
    void remaindersGoOneTokenPerReplicaStartingAtTheSourceIndex() {
        LayerPlacement p = LayerPlacement.ofPhysicalSlots(2, new int[][] {{0, 0}, {0, 1}});
        // 7 tokens over 3 replicas: 2 each, the one left over to replica (source mod 3).
        QuotaResult fromSource0 = EqualSplit.apply(p, new long[] {7, 0, 0, 1});
        assertThat(fromSource0.gpuLoad(0)).isEqualTo(5); // replicas 0 and 1: 3 + 2
        assertThat(fromSource0.gpuLoad(1)).isEqualTo(2 + 1);
        QuotaResult fromSource1 = EqualSplit.apply(p, new long[] {1, 0, 7, 0});
        // Source 1's 7: its remainder goes to replica 1 (GPU 0): 3 + 2 there; source 0's single token to replica 0.
        assertThat(fromSource1.gpuLoad(0)).isEqualTo(5 + 1);
        assertThat(fromSource1.gpuLoad(1)).isEqualTo(2);
    }

    @Test
    void withoutDuplicatesThePhysicalSplitIsThePerCopySplit() {
        LayerPlacement slots = LayerPlacement.ofPhysicalSlots(3, new int[][] {{0, 2}, {1, 0}});
        assertThat(slots.hasDuplicateReplicas()).isFalse();
        assertThat(slots).isEqualTo(LayerPlacement.of(3, new int[][] {{0, 2}, {1, 0}}));
        long[] counts = {5, 1, 2, 4, 3, 0};
        assertThat(EqualSplit.apply(slots, counts).gpuLoad(0)).isEqualTo(3 + 2 + 2 + 0);
    }
}
