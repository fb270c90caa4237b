package dev.ballast.contracts.plan;

/**
 * What a sidecar says at a step boundary: the newest plan it holds that belongs to the asked generation and whose
 * earliest step has come (null: none), and the oldest plan it still holds (null: it holds none).
 */
public record PlanHeads(PlanVersion newest, PlanVersion oldest) {
    public static final PlanHeads EMPTY = new PlanHeads(null, null);
}
