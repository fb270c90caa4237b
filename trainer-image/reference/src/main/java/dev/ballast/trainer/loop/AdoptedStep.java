package dev.ballast.trainer.loop;

import dev.ballast.contracts.plan.PlanVersion;

/** What one rank ran in one step: the mean loss over all ranks' tokens and the plan it used ((g, 0): static). */
public record AdoptedStep(int rank, int step, double loss, PlanVersion adopted) {
}
