package dev.ballast.planner.ballast;

import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.planners.PlanningContext;

/**
 * The from-scratch fallback when the first choice cannot be balanced: locality first, at a fixed share. Candidates
 * give half, a quarter or none of the slots to local replicas first, then shed; the {@link CandidateSelector} takes
 * the first balanced one by predicted time.
 */
public final class LocalShareCandidates {
    private LocalShareCandidates() {
    }

    /**
     * The winner among static and up to three candidates with half, a quarter or none of the slots first given to
     * local replicas, through the selector in ascending order of predicted time (a candidate the quota rule leaves
     * unbalanced is topped up where free slots allow; the first balanced one no slower than static wins). If none does,
     * the selector's fallback.
     */
    public static LayerPlacement choose(PlanningContext c, GroupTopology gt, LayerDemand demand, CandidateSelector selector) {
        int slotsTotal = c.redundantSlots() * gt.ep();
        // The quarter-local candidate's local replicas are the first quarter of the half-local one's: picked once.
        LocalPicks picks = new LocalPicks(slotsTotal / 2);
        LayerPlacement local = shed(c, gt, demand, slotsTotal / 2, picks);
        // When fewer than a quarter of the slots found a local use, both candidates are the same placement.
        boolean same = picks.count() <= slotsTotal / 4;
        CandidateSelector.Candidate half = selector.score(local);
        CandidateSelector.Candidate quarter = same ? half : selector.score(shed(c, gt, demand, slotsTotal / 4, picks));
        CandidateSelector.Candidate[] locals = same ? new CandidateSelector.Candidate[] {half}
                : new CandidateSelector.Candidate[] {half, quarter};
        // Predicted time is usually unimodal in the local share: when half beats a quarter, giving none is not tried
        // unless neither local candidate can be balanced.
        if (quarter.seconds() > half.seconds()) {
            LayerPlacement best = selector.pick(locals);
            if (best != null) {
                return best;
            }
            locals = new CandidateSelector.Candidate[0];
        }
        CandidateSelector.Candidate[] cands = new CandidateSelector.Candidate[locals.length + 1];
        cands[0] = selector.score(shed(c, gt, demand, 0, null));
        System.arraycopy(locals, 0, cands, 1, locals.length);
        LayerPlacement best = selector.pick(cands);
        return best != null ? best : selector.fallback();
    }

    /**
     * One candidate: first up to {@code localReplicas} replicas where a node's own tokens for an expert would otherwise
     * cross the network (largest net saving first), then the busiest GPUs shed load. {@code picks} (may be null)
     * records the local replicas on its first use and replays them on the next ones.
     */
    public static LayerPlacement shed(PlanningContext c, GroupTopology gt, LayerDemand demand, int localReplicas,
                                      LocalPicks picks) {
        return shed(c, gt, demand, localReplicas, picks, TrafficBytes.of(c).perReplica());
    }

    /**
     * Every node first: a copy of each expert on every node whose sources send it tokens, as far as the slots allow
     * (the most tokens first), at any saving; then the busiest GPUs shed load. Where compute hides the replicas'
     * parameter traffic (large experts), the fastest layers keep every token on NVLink this way (the exact optimum's
     * placements on Mixtral at 2x4 do); a greedy that adds one replica at a time does not get there, because a copy
     * added to a GPU already at the rule's threshold takes no tokens until others move.
     */
    public static LayerPlacement everyNode(PlanningContext c, GroupTopology gt, LayerDemand demand) {
        return shed(c, gt, demand, c.redundantSlots() * gt.ep(), null, 0);
    }

    private static LayerPlacement shed(PlanningContext c, GroupTopology gt, LayerDemand demand, int localReplicas,
                                       LocalPicks picks, double minSavedBytes) {
        TrafficBytes bytes = TrafficBytes.of(c);
        SheddingState st = SheddingState.fresh(gt.ep(), c.shape().experts(), c.redundantSlots(), demand);
        if (picks != null && picks.recorded()) {
            picks.replay(st, localReplicas);
        } else if (localReplicas > 0) {
            LocalReplicas.place(gt, st, demand, localReplicas, bytes.perToken(), minSavedBytes, picks, null);
        }
        new LoadShedder(gt, st, demand, bytes).run();
        return st.toPlacement();
    }
}
