package dev.ballast.tools.bench;

import dev.ballast.planner.load.EmaPredictor;
import dev.ballast.planner.model.MemoryBudget;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.Parallelism;

/**
 * Evaluation parameters shared by all runs of one bench invocation (the defaults of docs/cost-model.md).
 *
 * @param ep             EP group size, or null for min(experts, GPUs per stage)
 * @param replanInterval steps between re-plans; a scenario's own interval wins when {@code scenarioInterval} is set
 * @param tokensPerGpu   tokens per GPU per step; each GPU's counts are rescaled to tokensPerGpu × topK (0: raw counts)
 * @param forceOracle    score every trace in oracle mode (plan and score on the same step)
 * @param maxSteps       use at most this many steps of each trace (0: all)
 * @param planRepeats    time each plan this many times (plan-time statistics), at least 1
 * @param memoryBudgetBytes peak expert bytes per GPU ({@link MemoryBudget}); 0: none, {@code redundantSlots} apply
 */
public record BenchConfig(Integer ep, int pp, Mode mode, int redundantSlots, int replanInterval, boolean scenarioInterval,
                          int tokensPerGpu, double alpha, boolean forceOracle, int maxSteps, int planRepeats,
                          long memoryBudgetBytes) {
    public static BenchConfig defaults() {
        return new BenchConfig(null, 1, Mode.REPLICATE, 2, 50, true, 8192, EmaPredictor.DEFAULT_ALPHA, false, 0, 1, 0);
    }

    public BenchConfig with(Mode m) {
        return new BenchConfig(ep, pp, m, redundantSlots, replanInterval, scenarioInterval, tokensPerGpu, alpha, forceOracle,
                maxSteps, planRepeats, memoryBudgetBytes);
    }

    public BenchConfig withTokensPerGpu(int tokens) {
        return new BenchConfig(ep, pp, mode, redundantSlots, replanInterval, scenarioInterval, tokens, alpha, forceOracle,
                maxSteps, planRepeats, memoryBudgetBytes);
    }

    public BenchConfig withMaxSteps(int steps) {
        return new BenchConfig(ep, pp, mode, redundantSlots, replanInterval, scenarioInterval, tokensPerGpu, alpha, forceOracle,
                steps, planRepeats, memoryBudgetBytes);
    }

    public BenchConfig withPlanRepeats(int n) {
        return new BenchConfig(ep, pp, mode, redundantSlots, replanInterval, scenarioInterval, tokensPerGpu, alpha, forceOracle,
                maxSteps, n, memoryBudgetBytes);
    }

    /** Redundant slots per GPU for this model and layout: {@code redundantSlots}, or fewer where the memory budget says. */
    public int slotsFor(MoeShape shape, Parallelism par) {
        try {
            return MemoryBudget.slotsWithin(shape, mode, par, memoryBudgetBytes, redundantSlots);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--memory-budget: " + e.getMessage(), e);
        }
    }
}
