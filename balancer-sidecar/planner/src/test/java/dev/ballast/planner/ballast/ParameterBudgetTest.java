package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Hardware;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Local replicas are admitted only while every link's refresh and gradient-return bytes fit in what it moves during
 * the layer's compute: 1 GB weights and gradients, 0.05 s of compute, so a 50 GB/s NIC carries 2.5 GB, a 25 GB/s
 * cross-rack link 1.25 GB and NVLink (450 GB/s) 22.5 GB per direction.
 */
class ParameterBudgetTest {
    private static final Hardware HW = new Hardware(450, 50, 25, 1000, 0.5);
    private static final double GB = 1e9;

    @Test
    void theOwnersNicLimitsRemoteReplicasAndARefusedOneLeavesNoTrace() {
        // Two nodes of two GPUs in one rack; experts homed on GPU 0.
        GroupTopology gt = GroupTopology.ofPlaces(new int[] {0, 0, 1, 1}, new int[] {0, 0, 0, 0}, HW);
        ParameterBudget b = new ParameterBudget(gt, GB, GB, 0.05);
        assertThat(b.tryAdd(0, 2)).isTrue();  // GPU 0 sends 1 GB over its NIC
        assertThat(b.tryAdd(0, 3)).isTrue();  // 2 GB
        assertThat(b.tryAdd(0, 2)).isFalse(); // 3 GB > 2.5 GB
        assertThat(b.tryAdd(0, 1)).isTrue();  // same node: NVLink, not the NIC
        // GPU 2 receives 1 GB so far; had the refused replica been counted it would hold 2 GB and this would not fit.
        assertThat(b.tryAdd(1, 2)).isTrue();
        assertThat(b.tryAdd(1, 2)).isFalse(); // GPU 2 now receives 2 GB (weights) and would take 3 GB
    }

    @Test
    void crossRackReplicasAreLimitedByTheSlowerRackLink() {
        // Two nodes of one GPU each, in different racks: the NIC would carry two replicas, the rack link one.
        GroupTopology gt = GroupTopology.ofPlaces(new int[] {0, 1}, new int[] {0, 1}, HW);
        ParameterBudget b = new ParameterBudget(gt, GB, GB, 0.05);
        assertThat(b.tryAdd(0, 1)).isTrue();
        assertThat(b.tryAdd(0, 1)).isFalse();
    }

    @Test
    void replicasAlreadyPlacedCountAgainstTheBudget() {
        GroupTopology gt = GroupTopology.ofPlaces(new int[] {0, 0, 1, 1}, new int[] {0, 0, 0, 0}, HW);
        ParameterBudget b = new ParameterBudget(gt, GB, GB, 0.05);
        b.add(0, 2, 1);
        b.add(0, 3, 1);
        assertThat(b.tryAdd(0, 2)).isFalse();
        b.add(0, 3, -1);
        assertThat(b.tryAdd(0, 2)).isTrue();
    }
}
