package dev.ballast.contracts.world;

import java.util.List;

/**
 * Every TrainingJob spec field that shapes plans, as the operator froze it when it committed the world: the balancer
 * reads these from the world document only, never from the live spec, so a spec edit takes effect with the next world.
 * Nothing here has a default: the operator writes every field (the CRD's defaults have been applied by then).
 *
 * @param expertParallel     spec.parallelism.expert: expert-parallel group size in GPUs
 * @param pipeline           spec.parallelism.pipeline
 * @param memoryBudgetBytes  spec.balancer.memoryBudgetBytes, 0 when unset (no cap)
 * @param hardware           spec.balancer.hardware, every rate present (the CRD's defaults applied)
 */
public record PlanningSpec(int expertParallel, int pipeline,
                           int moeLayers, int experts, int topK, int sharedExperts, int hiddenSize, int ffnHiddenSize,
                           int bytesPerParam,
                           String mode, String planner, int redundantSlotsPerGpu, int replanEverySteps,
                           long memoryBudgetBytes, HardwareSpec hardware) {
    /** spec.balancer.mode values (the CRD's enum). */
    public static final List<String> MODES = List.of("replicate", "fssdp", "off");
    /** spec.balancer.planner values (the CRD's enum). */
    public static final List<String> PLANNERS = List.of("ballast", "ballast-routed", "eplb", "static");

    public PlanningSpec {
        atLeast("parallelism.expert", expertParallel, 1);
        atLeast("parallelism.pipeline", pipeline, 1);
        atLeast("model.moeLayers", moeLayers, 1);
        atLeast("model.experts", experts, 1);
        atLeast("model.topK", topK, 1);
        atLeast("model.sharedExperts", sharedExperts, 0);
        atLeast("model.hiddenSize", hiddenSize, 1);
        atLeast("model.ffnHiddenSize", ffnHiddenSize, 1);
        atLeast("model.bytesPerParam", bytesPerParam, 1);
        atLeast("balancer.redundantSlotsPerGpu", redundantSlotsPerGpu, 0);
        atLeast("balancer.replanEverySteps", replanEverySteps, 1);
        atLeast("balancer.memoryBudgetBytes", memoryBudgetBytes, 0);
        if (hardware == null) {
            throw new IllegalArgumentException("balancer.hardware is required");
        }
        if (topK > experts) {
            throw new IllegalArgumentException("model.topK (" + topK + ") must not exceed model.experts (" + experts + ")");
        }
        if (!MODES.contains(mode)) {
            throw new IllegalArgumentException("balancer.mode must be one of " + MODES + ", got \"" + mode + "\"");
        }
        if (!PLANNERS.contains(planner)) {
            throw new IllegalArgumentException("balancer.planner must be one of " + PLANNERS + ", got \"" + planner + "\"");
        }
    }

    private static void atLeast(String field, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(field + " must be >= " + min + ", got " + value);
        }
    }
}
