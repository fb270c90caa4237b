package dev.ballast.planner.ballast;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.StaticLayout;
import dev.ballast.planner.planners.PlanningContext;

/**
 * The planner's first choice: balance first, then locality. The shedding greedy runs with every slot open, then local
 * replicas go into the slots balance left (one per node of the group kept free for the selector's top-up), then the
 * greedy runs again for the load they took. Balancing first leaves exactly the slots balance does not need to
 * locality, so one candidate per layer usually suffices.
 */
public final class BalanceThenLocal {
    /**
     * How many times its refresh and gradient bytes a local replica must save in network token bytes. Every copy also
     * costs the per-step quota rule work on every rank, a working copy's memory and a reshuffle of the balanced loads;
     * replicas that barely pay for their parameter traffic buy little. Measured on the docs suite and the whole-model
     * input (docs/planner.md): 1 makes the best plans but a third more quota-rule work per step; 3 keeps most of that
     * quality, with the rule's work and the plan time below the local-share planner's; from 6 on, OLMoE 8x8 falls below
     * 0.95 of ideal.
     */
    public static final double LOCAL_GAIN = 3;

    /**
     * The same in fssdp mode, where a copy's bytes are its gathers and reduce-scatters ({@link TrafficBytes}): a local
     * replica must save at least what it moves. Measured on the FSSDP bench rows (docs/planner.md, step 5): 3 loses
     * zipf-top8 at 8×8 0.08 of ideal against 1 (0.935 against 1.013) and changes no other row; 0 plans as 1 there.
     * No {@link ParameterBudget} in this mode: every GPU gathers from every other, so once the homes' own gathers
     * exceed a link's share of compute (zipf-top8 at 2×8) a budget admits no replica at all, where the cost model
     * finds that their token savings pay for the exposed gathers (0.969 of ideal with such a budget, 1.113 without).
     */
    public static final double FSSDP_LOCAL_GAIN = 1;

    private BalanceThenLocal() {
    }

    /**
     * The placement for one layer: shed, then local replicas that save {@link #LOCAL_GAIN} times their parameter bytes
     * and whose parameter traffic (replicate: refresh and gradient return; fssdp: gathers and reduce-scatters) fits
     * under the layer's compute ({@link ParameterBudget}), then shed again.
     * With a {@code seed} (the plan in use: the incremental re-plan's repair target) the seed's replicas that still pay
     * start in place, and those balance leaves unused are dropped before the local replicas.
     */
    public static LayerPlacement place(PlanningContext c, CostModel cost, GroupTopology gt, LayerDemand demand,
                                       LayerPlacement seed) {
        return place(c, cost, gt, demand, seed, c.mode() == Mode.REPLICATE ? LOCAL_GAIN : FSSDP_LOCAL_GAIN);
    }

    /**
     * As {@link #place(PlanningContext, CostModel, GroupTopology, LayerDemand, LayerPlacement)}, with local replicas
     * that save {@code localGain} times their parameter bytes (0: any saving; the budget still applies).
     */
    public static LayerPlacement place(PlanningContext c, CostModel cost, GroupTopology gt, LayerDemand demand,
                                       LayerPlacement seed, double localGain) {
        int ep = gt.ep();
        int experts = c.shape().experts();
        int slots = c.redundantSlots();
        int nc = gt.nodeCount();
        TrafficBytes bytes = TrafficBytes.of(c);
        SheddingState st = SheddingState.fresh(ep, experts, slots, demand);
        if (seed != null) {
            keepUseful(gt, st, seed, demand, bytes);
        }
        LoadShedder shedder = new LoadShedder(gt, st, demand, bytes);
        shedder.run();
        if (seed != null && st.pruneUnused() > 0) {
            shedder.run();
        }
        int free = 0;
        for (int g = 0; g < ep; g++) {
            free += slots - st.replicaCount(g);
        }
        int locals = free - nc;
        if (locals > 0) {
            ParameterBudget budget = null;
            if (c.mode() == Mode.REPLICATE) {
                budget = new ParameterBudget(gt, c.shape().weightBytesPerExpert(), c.shape().gradBytesPerExpert(),
                        cost.computeSeconds(shedder.target(), gt.hardware()), st.budgetScratch());
                for (int e = 0; e < experts; e++) {
                    for (int k = 1; k < st.copyCount(e); k++) {
                        budget.add(st.copyGpu(e, 0), st.copyGpu(e, k), 1);
                    }
                }
            }
            LocalReplicas.place(gt, st, demand, locals, bytes.perToken(), localGain * bytes.perReplica(), null, budget);
            shedder.run();
        }
        return st.toPlacement();
    }

    /**
     * Puts the replicas of {@code seed} into a fresh state while their node's tokens still outweigh their refresh
     * traffic; each serves its node's tokens first.
     */
    private static void keepUseful(GroupTopology gt, SheddingState st, LayerPlacement seed, LayerDemand demand,
                                   TrafficBytes bytes) {
        int ep = st.ep();
        int experts = st.experts();
        for (int g = 0; g < ep; g++) {
            for (int i = 0; i < seed.expertCount(g); i++) {
                int e = seed.expertAt(g, i);
                long d = demand.nodeTokens(gt.nodeIndex(g), e);
                boolean homeNode = gt.nodeIndex(StaticLayout.home(e, ep, experts)) == gt.nodeIndex(g);
                if (StaticLayout.home(e, ep, experts) != g && st.hasFreeSlot(g)
                        && d * bytes.perToken() > bytes.perReplica(homeNode)) {
                    st.addReplica(e, g);
                    st.shift(e, g, d);
                }
            }
        }
    }
}
