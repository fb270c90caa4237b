package dev.ballast.planner.model;

/**
 * A per-GPU byte budget for expert weights ({@code spec.balancer.memoryBudgetBytes}) turned into redundant slots per
 * GPU, the unit planners place replicas in. A GPU's expert memory is, per MoE layer of its pipeline stage, what the
 * cost model's peak memory counts (docs/cost-model.md): replicate mode keeps its home experts with gradients and
 * optimizer state plus working copies (weights and gradients) of up to {@code slots} replicas; fssdp keeps an even
 * shard of every expert's full state plus up to {@code homes + slots} gathered working copies.
 */
public final class MemoryBudget {
    private MemoryBudget() {
    }

    /**
     * One GPU's bytes for one layer's experts: in replicate mode {@code homes} experts with full state plus
     * {@code workingCopies} replicas; in fssdp mode an even shard of every expert plus {@code workingCopies} gathered
     * experts ({@code homes} unused).
     */
    public static double layerBytes(MoeShape shape, Mode mode, int ep, int homes, int workingCopies) {
        return layerBytes(shape, mode == Mode.REPLICATE ? homes : (double) shape.experts() / ep, workingCopies);
    }

    /**
     * One GPU's bytes for one layer's experts when it holds {@code ownedExperts} experts' worth of full state (weights,
     * gradients, optimizer state; fractional for fssdp shards) and {@code workingCopies} working copies.
     */
    public static double layerBytes(MoeShape shape, double ownedExperts, int workingCopies) {
        double params = shape.paramsPerExpert();
        double master = params * (shape.bytesPerParam() + shape.gradBytesPerParam() + shape.optimizerBytesPerParam());
        double working = params * (shape.bytesPerParam() + shape.gradBytesPerParam());
        return ownedExperts * master + workingCopies * working;
    }

    /** Peak expert bytes on the busiest GPU when every layer of its pipeline stage uses all {@code slots}. */
    public static double peakBytes(MoeShape shape, Mode mode, Parallelism par, int slots) {
        int homes = StaticLayout.maxHomeCount(par.ep(), shape.experts());
        double perLayer = layerBytes(shape, mode, par.ep(), homes, mode == Mode.REPLICATE ? slots : homes + slots);
        int layersPerStage = (shape.layers() + par.pp() - 1) / par.pp();
        return perLayer * layersPerStage;
    }

    /**
     * The most redundant slots per GPU, at most {@code maxSlots}, whose {@link #peakBytes} fit in {@code budgetBytes};
     * {@code budgetBytes <= 0} means no budget ({@code maxSlots}). A budget too small for the experts a GPU must hold
     * anyway is refused with the numbers.
     */
    public static int slotsWithin(MoeShape shape, Mode mode, Parallelism par, long budgetBytes, int maxSlots) {
        if (budgetBytes <= 0) {
            return maxSlots;
        }
        double floor = peakBytes(shape, mode, par, 0);
        if (floor > budgetBytes) {
            throw new IllegalArgumentException(String.format(
                    "memoryBudgetBytes %d is below the %.0f bytes per GPU the %s layout needs without any replica",
                    budgetBytes, Math.ceil(floor), mode.wireName()));
        }
        int slots = 0;
        while (slots < maxSlots && peakBytes(shape, mode, par, slots + 1) <= budgetBytes) {
            slots++;
        }
        return slots;
    }
}
