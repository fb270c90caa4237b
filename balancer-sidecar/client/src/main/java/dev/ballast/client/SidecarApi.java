package dev.ballast.client;

import dev.ballast.contracts.plan.PlanHeads;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.model.Plan;

import java.util.Optional;

/** The trainer's view of its pod's sidecar (docs/protocol.md, "Trainer API"). */
public interface SidecarApi {
    /** Fire-and-forget: returns at once; the report is sent in the background (or dropped and counted). */
    void report(StepLoads report);

    /**
     * The same without building a {@link StepLoads}: {@code counts[i][e]} for layer {@code firstLayer + i}, expert e;
     * {@code adopted} is the plan used for this step (null: the static layout). The caller may reuse {@code counts}
     * once this returns.
     */
    default void report(long worldGeneration, long step, int gpuRank, int firstLayer, long[][] counts, PlanVersion adopted) {
        report(worldGeneration, step, gpuRank, firstLayer, counts, adopted, null);
    }

    /** The same with what the rank measured of the step ({@code timing}; null: nothing). */
    default void report(long worldGeneration, long step, int gpuRank, int firstLayer, long[][] counts, PlanVersion adopted,
                        StepTiming timing) {
        report(new StepLoads(worldGeneration, step, gpuRank, firstLayer, counts, adopted, timing).copy());
    }

    PlanHeads heads(long generation, long step);

    Optional<Plan> plan(PlanVersion version);
}
