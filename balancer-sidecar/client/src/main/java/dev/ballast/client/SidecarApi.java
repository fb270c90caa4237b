package dev.ballast.client;

import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.PlanVersion;

import java.util.Optional;

/** The trainer's view of its pod's sidecar (docs/protocol.md, "Trainer API"). */
public interface SidecarApi {
    /** Fire-and-forget: returns at once; the report is sent in the background (or dropped and counted). */
    void report(LoadReport report);

    PlanHeads heads(long generation, long step);

    Optional<Plan> plan(PlanVersion version);
}
