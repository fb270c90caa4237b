package dev.ballast.planner.bench;

import dev.ballast.planner.load.EmaPredictor;
import dev.ballast.planner.model.Mode;

/**
 * Evaluation parameters shared by all runs of one bench invocation (DESIGN §6 defaults).
 *
 * @param ep             EP group size, or null for min(experts, GPUs per stage)
 * @param replanInterval steps between re-plans; a scenario's own interval wins when {@code scenarioInterval} is set
 * @param tokensPerGpu   tokens per GPU per step; each GPU's counts are rescaled to tokensPerGpu × topK (0: raw counts)
 * @param forceOracle    score every trace in oracle mode (plan and score on the same step)
 * @param maxSteps       use at most this many steps of each trace (0: all)
 * @param planRepeats    time each plan this many times (plan-time statistics), at least 1
 */
public record BenchConfig(Integer ep, int pp, Mode mode, int redundantSlots, int replanInterval, boolean scenarioInterval,
                          int tokensPerGpu, double alpha, boolean forceOracle, int maxSteps, int planRepeats) {
    public static BenchConfig defaults() {
        return new BenchConfig(null, 1, Mode.REPLICATE, 2, 50, true, 8192, EmaPredictor.DEFAULT_ALPHA, false, 0, 1);
    }

    public BenchConfig with(Mode m) {
        return new BenchConfig(ep, pp, m, redundantSlots, replanInterval, scenarioInterval, tokensPerGpu, alpha, forceOracle,
                maxSteps, planRepeats);
    }

    public BenchConfig withPlanRepeats(int n) {
        return new BenchConfig(ep, pp, mode, redundantSlots, replanInterval, scenarioInterval, tokensPerGpu, alpha, forceOracle,
                maxSteps, n);
    }
}
