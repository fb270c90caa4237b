package dev.ballast.client;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.quota.QuotaResult;
import dev.ballast.planner.quota.QuotaRule;

/**
 * The trainer's per-step quota computation (docs/quota-rule.md) for one layer of its EP group: the planner's
 * {@link QuotaRule}, the same code the balancer scores plans with, fed with the adopted plan (or the static layout).
 */
public final class StepQuotas {
    private StepQuotas() {
    }

    /**
     * @param plan    the adopted plan, or null while the static layout is in use
     * @param copy    the rank's data-parallel copy of the EP group
     * @param node    node (NVLink domain) of each EP rank of the group; only equality matters
     * @param rack    rack of each EP rank of the group
     * @param counts  the step's all-gathered counts, row-major [source EP rank][expert]
     */
    public static QuotaResult forLayer(Plan plan, int layer, int copy, int experts, int[] node, int[] rack, long[] counts) {
        LayerPlacement p = plan == null ? LayerPlacement.staticLayout(node.length, experts) : plan.placement(layer, copy);
        return QuotaRule.apply(GroupTopology.ofPlaces(node, rack, Hardware.DEFAULT), p, counts, null);
    }

    /** Same, with explicit placement and capacities (what the shared test vectors describe). */
    public static QuotaResult forPlacement(LayerPlacement placement, int[] node, int[] rack, long[] counts, long[] capacity) {
        return QuotaRule.apply(GroupTopology.ofPlaces(node, rack, Hardware.DEFAULT), placement, counts, capacity);
    }
}
