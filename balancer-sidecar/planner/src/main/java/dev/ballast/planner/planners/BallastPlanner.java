package dev.ballast.planner.planners;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.StaticLayout;
import dev.ballast.planner.quota.QuotaResult;
import dev.ballast.planner.quota.QuotaRule;

import java.util.Arrays;

/**
 * Ballast's planner (docs/planner.md). Per EP group and layer:
 * <ol>
 * <li>Shedding greedy: while the busiest GPU is above the mean, move part of one of its experts' load to another copy
 *     of that expert with spare room, or open a replica in a free slot, choosing the node whose tokens would stop
 *     crossing the network (net of the replica's refresh traffic) and preferring NVLink on ties.</li>
 * <li>Gate: score the candidate, the placement in use and the static layout with the quota rule and the cost model
 *     over the re-plan interval, counting the candidate's new copies as a one-off cost; keep the best (ties keep
 *     what is in use). So a copy moves only when its predicted gain beats its cost.</li>
 * </ol>
 * The incremental variant also prefers slots that already hold the expert; the scratch variant ignores the plan in use.
 */
public final class BallastPlanner implements Planner {
    private final boolean incremental;

    public BallastPlanner(boolean incremental) {
        this.incremental = incremental;
    }

    @Override
    public String name() {
        return incremental ? "ballast" : "ballast-scratch";
    }

    @Override
    public Routing routing() {
        return Routing.QUOTA_RULE;
    }

    @Override
    public Plan plan(PlanRequest r) {
        PlanningContext c = r.context();
        int layers = c.shape().layers();
        int experts = c.shape().experts();
        CostModel cost = c.newCostModel();
        LayerPlacement staticP = LayerPlacement.staticLayout(c.parallelism().ep(), experts);
        LayerPlacement[][] out = new LayerPlacement[layers][c.parallelism().dp()];
        for (int l = 0; l < layers; l++) {
            for (int copy = 0; copy < c.parallelism().dp(); copy++) {
                LayerPlacement current = r.current() == null ? null : r.current().placement(l, copy);
                out[l][copy] = placeLayer(c, cost, c.groupOfLayer(l, copy), r.predicted().counts(l, copy), current, staticP);
            }
        }
        return new Plan(r.version(), r.earliestStep(), c.mode(), name(), experts, c.parallelism(), out);
    }

    LayerPlacement placeLayer(PlanningContext c, CostModel cost, GroupTopology gt, long[] counts, LayerPlacement current,
                              LayerPlacement staticP) {
        LayerPlacement keep = incremental ? current : null;
        LayerPlacement cand = shed(c, gt, counts, keep);
        LayerPlacement inUse = incremental && current != null ? current : staticP;
        boolean chargeMoves = incremental && c.mode() == Mode.REPLICATE;
        double interval = c.replanInterval();
        LayerPlacement best = inUse;
        double bestScore = score(c, cost, gt, counts, inUse, inUse, interval, chargeMoves);
        if (!staticP.equals(inUse)) {
            double s = score(c, cost, gt, counts, staticP, inUse, interval, chargeMoves);
            if (s < bestScore) {
                best = staticP;
                bestScore = s;
            }
        }
        if (!cand.equals(inUse) && !cand.equals(staticP)) {
            double s = score(c, cost, gt, counts, cand, inUse, interval, chargeMoves);
            if (s < bestScore) {
                best = cand;
            }
        }
        return best;
    }

    /** Predicted seconds over the interval: steady-state step time × interval, plus the one-off copy cost of new replicas. */
    private static double score(PlanningContext c, CostModel cost, GroupTopology gt, long[] counts, LayerPlacement p,
                                LayerPlacement inUse, double interval, boolean chargeMoves) {
        QuotaResult q = QuotaRule.apply(gt, p, counts, null);
        double steady = cost.layer(gt, p, q, null).totalSec();
        double s = steady * interval;
        if (chargeMoves && p != inUse) {
            s += cost.layer(gt, p, q, inUse).totalSec() - steady;
        }
        return s;
    }

    /** The shedding greedy; {@code keep} (may be null) marks replicas to prefer when opening slots. */
    static LayerPlacement shed(PlanningContext c, GroupTopology gt, long[] counts, LayerPlacement keep) {
        int ep = gt.ep();
        int experts = c.shape().experts();
        int slots = c.redundantSlots();
        int nc = gt.nodeCount();
        long[] total = new long[experts];
        long[] nodeDemand = new long[experts * nc];
        long all = 0;
        for (int s = 0; s < ep; s++) {
            int row = s * experts;
            int nodeBase = gt.nodeIndex(s);
            for (int e = 0; e < experts; e++) {
                long x = counts[row + e];
                total[e] += x;
                nodeDemand[e * nc + nodeBase] += x;
            }
            }
        for (long t : total) {
            all += t;
        }
        State st = new State(ep, experts, slots, total);
        long target = (all + ep - 1) / ep;
        long tol = target / 1000;
        double tokenBytes = 4.0 * c.shape().tokenBytes();
        double refreshBytes = c.mode() == Mode.REPLICATE
                ? c.shape().weightBytesPerExpert() + c.shape().gradBytesPerExpert() : 0;
        boolean[] stuck = new boolean[ep];
        int guard = 4 * (slots * ep + ep + experts) + 16;
        int[] candE = new int[StaticLayout.maxHomeCount(ep, experts) + slots];
        long[] candA = new long[candE.length];
        boolean[] covered = new boolean[nc];
        while (guard-- > 0) {
            int gmax = -1;
            for (int g = 0; g < ep; g++) {
                if (!stuck[g] && (gmax < 0 || st.load[g] > st.load[gmax])) {
                    gmax = g;
                }
            }
            if (gmax < 0 || st.load[gmax] - target <= tol) {
                break;
            }
            long excess = st.load[gmax] - target;
            int n = st.expertsOn(gmax, candE, candA);
            boolean progress = false;
            for (int i = 0; i < n && !progress; i++) {
                int e = candE[i];
                long a = candA[i];
                // Option 1: an existing copy with room.
                int bestG = -1;
                long bestSlack = 0;
                for (int k = 0; k < st.copyCount(e); k++) {
                    int x = st.copyGpu(e, k);
                    long slack = target - st.load[x];
                    if (x != gmax && slack > bestSlack) {
                        bestG = x;
                        bestSlack = slack;
                    }
                }
                if (bestG >= 0) {
                    st.move(e, gmax, bestG, Math.min(Math.min(excess, a), bestSlack));
                    progress = true;
                    break;
                }
                // Option 2: open a replica.
                long need = Math.min(excess, a);
                Arrays.fill(covered, false);
                for (int k = 0; k < st.copyCount(e); k++) {
                    covered[gt.nodeIndex(st.copyGpu(e, k))] = true;
                }
                int homeNode = gt.nodeIndex(StaticLayout.home(e, ep, experts));
                int t = chooseTarget(gt, st, e, gmax, need, target, keep, covered, nodeDemand, nc, homeNode, tokenBytes, refreshBytes);
                if (t >= 0) {
                    st.addReplica(e, t);
                    st.move(e, gmax, t, Math.min(need, target - st.load[t]));
                    progress = true;
                }
            }
            if (!progress) {
                stuck[gmax] = true;
            }
        }
        return st.toPlacement();
    }

    private static int chooseTarget(GroupTopology gt, State st, int e, int src, long need, long target, LayerPlacement keep,
                                    boolean[] covered, long[] nodeDemand, int nc, int homeNode, double tokenBytes,
                                    double refreshBytes) {
        int ep = gt.ep();
        long useful = Math.max(1, need / 4);
        int best = -1;
        double bestScore = 0;
        long bestSlack = 0;
        boolean bestKept = false;
        for (int g = 0; g < ep; g++) {
            long slack = target - st.load[g];
            if (slack <= 0 || !st.hasFreeSlot(g) || st.holds(e, g)) {
                continue;
            }
            boolean kept = keep != null && keep.holds(g, e);
            if (!kept && slack < useful) {
                continue;
            }
            int n = gt.nodeIndex(g);
            double score = (covered[n] ? 0 : nodeDemand[e * nc + n] * tokenBytes) - (n == homeNode ? 0 : refreshBytes);
            boolean better;
            if (best < 0) {
                better = true;
            } else if (kept != bestKept) {
                better = kept;
            } else if (score != bestScore) {
                better = score > bestScore;
            } else {
                boolean near = gt.nodeIndex(g) == gt.nodeIndex(src);
                boolean bestNear = gt.nodeIndex(best) == gt.nodeIndex(src);
                better = near != bestNear ? near : slack > bestSlack;
            }
            if (better) {
                best = g;
                bestScore = score;
                bestSlack = slack;
                bestKept = kept;
            }
        }
        return best;
    }

    /** Copies and the load each is expected to carry during the greedy. Copy 0 of every expert is its home. */
    private static final class State {
        final int ep;
        final int experts;
        final int slots;
        final long[] load;
        final int[] copies;
        int[][] gpuOf;
        long[][] amount;
        final int[][] replicasOn;
        final int[] replicaCount;

        State(int ep, int experts, int slots, long[] total) {
            this.ep = ep;
            this.experts = experts;
            this.slots = slots;
            this.load = new long[ep];
            this.copies = new int[experts];
            this.gpuOf = new int[experts][];
            this.amount = new long[experts][];
            this.replicasOn = new int[ep][slots];
            this.replicaCount = new int[ep];
            for (int e = 0; e < experts; e++) {
                int h = StaticLayout.home(e, ep, experts);
                gpuOf[e] = new int[] {h};
                amount[e] = new long[] {total[e]};
                copies[e] = 1;
                load[h] += total[e];
            }
        }

        int copyCount(int e) {
            return copies[e];
        }

        int copyGpu(int e, int k) {
            return gpuOf[e][k];
        }

        boolean hasFreeSlot(int g) {
            return replicaCount[g] < slots;
        }

        boolean holds(int e, int g) {
            for (int k = 0; k < copies[e]; k++) {
                if (gpuOf[e][k] == g) {
                    return true;
                }
            }
            return false;
        }

        void addReplica(int e, int g) {
            if (copies[e] == gpuOf[e].length) {
                gpuOf[e] = Arrays.copyOf(gpuOf[e], copies[e] * 2);
                amount[e] = Arrays.copyOf(amount[e], copies[e] * 2);
            }
            gpuOf[e][copies[e]] = g;
            amount[e][copies[e]] = 0;
            copies[e]++;
            replicasOn[g][replicaCount[g]++] = e;
        }

        void move(int e, int from, int to, long m) {
            for (int k = 0; k < copies[e]; k++) {
                if (gpuOf[e][k] == from) {
                    amount[e][k] -= m;
                } else if (gpuOf[e][k] == to) {
                    amount[e][k] += m;
                }
            }
            load[from] -= m;
            load[to] += m;
        }

        /** Experts with load on g, largest amount first (lowest expert on ties); returns how many. */
        int expertsOn(int g, int[] outE, long[] outA) {
            int n = 0;
            int first = StaticLayout.firstExpert(g, ep, experts);
            int homes = StaticLayout.homeCount(g, ep, experts);
            for (int i = 0; i < homes; i++) {
                int e = first + i;
                if (amount[e][0] > 0) {
                    outE[n] = e;
                    outA[n++] = amount[e][0];
                }
            }
            for (int i = 0; i < replicaCount[g]; i++) {
                int e = replicasOn[g][i];
                for (int k = 1; k < copies[e]; k++) {
                    if (gpuOf[e][k] == g && amount[e][k] > 0) {
                        outE[n] = e;
                        outA[n++] = amount[e][k];
                    }
                }
            }
            for (int i = 1; i < n; i++) {
                int e = outE[i];
                long a = outA[i];
                int j = i - 1;
                while (j >= 0 && (outA[j] < a || (outA[j] == a && outE[j] > e))) {
                    outE[j + 1] = outE[j];
                    outA[j + 1] = outA[j];
                    j--;
                }
                outE[j + 1] = e;
                outA[j + 1] = a;
            }
            return n;
        }

        LayerPlacement toPlacement() {
            int[][] lists = new int[ep][];
            for (int g = 0; g < ep; g++) {
                int first = StaticLayout.firstExpert(g, ep, experts);
                int homes = StaticLayout.homeCount(g, ep, experts);
                int[] l = new int[homes + replicaCount[g]];
                for (int i = 0; i < homes; i++) {
                    l[i] = first + i;
                }
                System.arraycopy(replicasOn[g], 0, l, homes, replicaCount[g]);
                lists[g] = l;
            }
            return LayerPlacement.of(experts, lists);
        }
    }
}
