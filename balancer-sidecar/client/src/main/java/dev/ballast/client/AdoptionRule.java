package dev.ballast.client;

import dev.ballast.contracts.plan.PlanHeads;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.contracts.plan.PlanVersions;

/**
 * The plan-adoption rule (docs/protocol.md), as pure functions. At an optimizer-step boundary every rank contributes
 * {@code (newest, -oldest)}; one element-wise MIN all-reduce gives {@code v = min newest} and {@code o = max oldest};
 * every rank adopts v when {@code v >= o} and v is newer than its current plan, else keeps its current plan.
 * Because all ranks see the same (v, o) and hold the same current plan, they decide the same.
 */
public final class AdoptionRule {
    private AdoptionRule() {
    }

    /** The all-reduce contribution of one rank. A rank that holds no plan contributes "no newest" and an infinite oldest. */
    public static long[] contribution(PlanHeads heads) {
        long newest = PlanVersions.encode(heads.newest());
        long oldest = heads.oldest() == null ? Long.MAX_VALUE : PlanVersions.encode(heads.oldest());
        return new long[] {newest, -oldest};
    }

    /**
     * The decision from the reduced pair.
     *
     * @param current the plan every rank uses now (the static layout of the generation at its start)
     * @param reduced the element-wise MIN of all ranks' {@link #contribution}s
     * @return the version to adopt, or null to keep the current plan
     */
    public static PlanVersion decide(PlanVersion current, long[] reduced) {
        if (reduced.length != 2) {
            throw new IllegalArgumentException("the adoption all-reduce carries 2 values, got " + reduced.length);
        }
        long v = reduced[0];
        long o = -reduced[1]; // contributions are >= -Long.MAX_VALUE, so this cannot overflow
        if (v == PlanVersions.NONE || v < o) {
            return null;
        }
        PlanVersion candidate = PlanVersions.decode(v);
        if (candidate.worldGeneration() != current.worldGeneration() || candidate.compareTo(current) <= 0) {
            return null;
        }
        return candidate;
    }
}
