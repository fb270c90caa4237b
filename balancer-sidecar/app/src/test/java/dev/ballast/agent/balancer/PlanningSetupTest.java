package dev.ballast.agent.balancer;

import dev.ballast.agent.sim.TestWorlds;
import dev.ballast.contracts.world.HardwareSpec;
import dev.ballast.contracts.world.PlanningSpec;
import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.planner.model.Hardware;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PlanningSetupTest {

    @Test
    void theCostModelPricesPlansWithTheHardwareTheWorldDeclares() {
        PlanningSpec h100 = TestWorlds.spec(2, 8, 2, 4, 1, 20);
        HardwareSpec cpu = new HardwareSpec(0.0128, 0.022, 0.022, 0.058, 1);
        PlanningSpec onCpu = new PlanningSpec(h100.expertParallel(), h100.pipeline(), h100.moeLayers(), h100.experts(),
                h100.topK(), h100.sharedExperts(), h100.hiddenSize(), h100.ffnHiddenSize(), h100.bytesPerParam(),
                h100.mode(), h100.planner(), h100.redundantSlotsPerGpu(), h100.replanEverySteps(),
                h100.memoryBudgetBytes(), cpu);
        assertThat(setup(h100).context().topology().hardware()).isEqualTo(Hardware.DEFAULT);
        assertThat(setup(onCpu).context().topology().hardware()).isEqualTo(new Hardware(0.0128, 0.022, 0.022, 0.058, 1));
    }

    private static PlanningSetup setup(PlanningSpec spec) {
        WorldDocument world = TestWorlds.world("j", 1, 2, spec, TestWorlds.worker("j", 0, 0, "n0", "d0", "r0"),
                TestWorlds.worker("j", 1, 1, "n1", "d1", "r0"));
        return PlanningSetup.of("j", spec, world);
    }
}
