package dev.ballast.agent.sim;

import dev.ballast.contracts.world.HardwareSpec;
import dev.ballast.contracts.world.PlanningSpec;
import dev.ballast.contracts.world.WorldDocument;
import dev.ballast.contracts.world.WorldWorker;

import java.util.List;

/** World documents for tests: the fields a test names, the CRD's defaults for the rest. */
public final class TestWorlds {
    private TestWorlds() {
    }

    /** replicate mode, ballast planner, one pipeline stage, default model sizes, no memory budget. */
    public static PlanningSpec spec(int moeLayers, int experts, int topK, int expertParallel, int redundantSlotsPerGpu,
                                    int replanEverySteps) {
        return withBudget(moeLayers, experts, topK, expertParallel, redundantSlotsPerGpu, replanEverySteps, 0);
    }

    public static PlanningSpec withBudget(int moeLayers, int experts, int topK, int expertParallel,
                                          int redundantSlotsPerGpu, int replanEverySteps, long memoryBudgetBytes) {
        return new PlanningSpec(expertParallel, 1, moeLayers, experts, topK, 0, 2048, 1024, 2, "replicate", "ballast",
                redundantSlotsPerGpu, replanEverySteps, memoryBudgetBytes, HardwareSpec.DEFAULT);
    }

    public static WorldDocument world(String job, long generation, int gpusPerWorker, PlanningSpec spec,
                                      WorldWorker... workers) {
        return new WorldDocument(job, "ns", generation, gpusPerWorker, spec, List.of(workers));
    }

    /** Pod {@code index} of job {@code job} at {@code nodeRank} on node {@code node}. */
    public static WorldWorker worker(String job, int index, int nodeRank, String node, String domain, String rack) {
        return new WorldWorker(index, job + "-worker-" + index, nodeRank, node, domain, rack);
    }
}
