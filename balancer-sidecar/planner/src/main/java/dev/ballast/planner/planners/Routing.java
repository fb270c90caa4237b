package dev.ballast.planner.planners;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.quota.EqualSplit;
import dev.ballast.planner.quota.QuotaResult;
import dev.ballast.planner.quota.QuotaRule;

/** How a planner's copies share a step's tokens. */
public enum Routing {
    /** Ballast's deterministic per-step quota rule (unequal shares, nearest copies first). */
    QUOTA_RULE,
    /** EPLB's equal split among an expert's copies. */
    EQUAL_SPLIT;

    public QuotaResult route(GroupTopology gt, LayerPlacement p, long[] counts) {
        return this == QUOTA_RULE ? QuotaRule.apply(gt, p, counts, null) : EqualSplit.apply(p, counts);
    }
}
