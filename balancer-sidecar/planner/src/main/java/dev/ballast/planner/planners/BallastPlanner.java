package dev.ballast.planner.planners;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.cost.LayerCost;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.LinkClass;
import dev.ballast.planner.model.LinkTokens;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.StaticLayout;
import dev.ballast.planner.quota.QuotaRule;

import java.util.Arrays;

/**
 * Ballast's planner (docs/planner.md has the full description). Per EP group and layer:
 * <ol>
 * <li>First choice, from scratch ({@link #balanceThenLocal}): the <em>shedding</em> greedy with every slot open (while
 *     the busiest GPU is above the mean, shift part of one of its experts to another copy with room, or open a replica
 *     in a free slot on the node whose own tokens would stop crossing the network, net of refresh bytes, NVLink on
 *     ties); then <em>local</em> replicas ((expert, node) pairs whose node has no copy, by inter-node tokens saved) in
 *     the slots balance left, one per node kept free, none that saves less than {@link #LOCAL_GAIN} times its
 *     parameter bytes and none whose refresh would not hide under compute ({@link ParamBudget}); then the greedy
 *     again.</li>
 * <li>Gate: scored with the quota rule and the cost model over the re-plan interval, it is taken if no slower than
 *     static and its quota-rule max/mean is within {@link #BALANCE_CAP}, or can be topped up to it with replicas in
 *     free slots ({@link #rebalance}). Otherwise (rare) the local-share candidates decide: half, a quarter or none of
 *     the slots first given to local replicas, then the greedy; the first balanced one by predicted time wins, else
 *     static if it is balanced, else the fastest.</li>
 * <li>Incremental (plan in use given, {@code ballast}): walk from the plan in use towards two targets (the scratch
 *     winner re-aligned to it, a repair that keeps its still-useful replicas) and stop
 *     where the predicted interval time, one-off copies included, plus a price of {@link #HYSTERESIS} per new copy
 *     is lowest; keeping the plan in use is the default. {@code ballast-scratch} ignores the plan in use.</li>
 * </ol>
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

    /**
     * Price of one new copy in an incremental re-plan, as a fraction of the plan in use's predicted time over the next
     * interval: on top of its one-off copy (which the cost model mostly hides under compute), each new copy must win
     * this much. It absorbs prediction noise, so re-plans on drifting loads move only copies that clearly pay off.
     */
    static final double HYSTERESIS = 0.002;

    LayerPlacement placeLayer(PlanningContext c, CostModel cost, GroupTopology gt, long[] counts, LayerPlacement current,
                              LayerPlacement staticP) {
        int slotsTotal = c.redundantSlots() * gt.ep();
        Demand demand = Demand.of(gt, counts, c.shape().experts());
        double interval = c.replanInterval();
        // From scratch, first choice: balance with every slot open, then local replicas in the slots balance leaves
        // (one per node kept free for the top-up, none that saves too little or would expose parameter traffic), then
        // balance again. The gate takes it if it is, or can be topped up to, BALANCE_CAP and no slower than static;
        // otherwise (rare) the local-share candidates decide.
        Gate gate = new Gate(c, cost, gt, counts, demand, staticP, interval);
        LayerPlacement first = balanceThenLocal(c, cost, gt, demand, null);
        LayerPlacement best = gate.pick(gate.score(first));
        if (best == null) {
            best = localShareCandidates(c, gt, demand, gate, slotsTotal);
        }
        if (!incremental || current == null) {
            return best;
        }
        // Targets: the scratch winner re-aligned to the plan in use (same replicas per node, kept on the GPUs that already
        // hold them), and a repair of the plan in use (the first choice's recipe, starting from its still-useful replicas).
        LayerPlacement[] targets = {align(gt, best, current, c.redundantSlots()), balanceThenLocal(c, cost, gt, demand, current)};
        return towards(c, cost, gt, counts, demand, current, targets, interval);
    }

    /**
     * The from-scratch fallback: static and up to three shedding candidates with half, a quarter or none of the slots
     * first given to local replicas, through the same gate in ascending order of predicted time (a candidate the quota
     * rule leaves unbalanced is topped up where free slots allow; the first balanced one no slower than static wins). If
     * none does, static if it is balanced, else the fastest of everything scored.
     */
    private static LayerPlacement localShareCandidates(PlanningContext c, GroupTopology gt, Demand demand, Gate gate,
                                                       int slotsTotal) {
        // The quarter-local candidate's local replicas are the first quarter of the half-local one's: picked once.
        LocalPicks picks = new LocalPicks(slotsTotal / 2);
        LayerPlacement local = shed(c, gt, demand, slotsTotal / 2, picks);
        // When fewer than a quarter of the slots found a local use, both candidates are the same placement.
        boolean same = picks.count() <= slotsTotal / 4;
        Gate.Candidate half = gate.score(local);
        Gate.Candidate quarter = same ? half : gate.score(shed(c, gt, demand, slotsTotal / 4, picks));
        Gate.Candidate[] locals = same ? new Gate.Candidate[] {half} : new Gate.Candidate[] {half, quarter};
        // Predicted time is usually unimodal in the local share: when half beats a quarter, giving none is not tried
        // unless neither local candidate can be balanced.
        if (quarter.seconds() > half.seconds()) {
            LayerPlacement best = gate.pick(locals);
            if (best != null) {
                return best;
            }
            locals = new Gate.Candidate[0];
        }
        Gate.Candidate[] cands = new Gate.Candidate[locals.length + 1];
        cands[0] = gate.score(shed(c, gt, demand, 0));
        System.arraycopy(locals, 0, cands, 1, locals.length);
        LayerPlacement best = gate.pick(cands);
        return best != null ? best : gate.fallback();
    }

    /**
     * The from-scratch gate of {@link #placeLayer}: static's score (computed only when a comparison needs it), and the
     * candidates scored so far. A candidate's predicted time is first bounded from above without routing its tokens
     * ({@link CostModel#upperBound}); the exact time is computed only when the bound cannot settle a comparison.
     */
    private static final class Gate {
        final PlanningContext c;
        final CostModel cost;
        final GroupTopology gt;
        final long[] counts;
        final Demand demand;
        final LayerPlacement staticP;
        final double interval;
        /** Static's busiest GPU: all its experts are single-copy, so the rule's load of a GPU is its home load. */
        final long staticMaxLoad;
        /**
         * A lower bound on static's score over the interval, from what its GPUs receive: a candidate predicted no
         * slower than that is no slower than static, so static's exact score is needed only for closer calls.
         */
        final double staticFloor;
        private double staticSeconds = Double.NaN;
        /** Every candidate the gate has weighed, in order: the fallback takes the fastest. */
        private final java.util.List<Candidate> considered = new java.util.ArrayList<>();

        Gate(PlanningContext c, CostModel cost, GroupTopology gt, long[] counts, Demand demand, LayerPlacement staticP,
             double interval) {
            this.c = c;
            this.cost = cost;
            this.gt = gt;
            this.counts = counts;
            this.demand = demand;
            this.staticP = staticP;
            this.interval = interval;
            // A GPU's home load is all it receives, over every link class, when each expert runs at home.
            long[] recv = demand.homeRecv();
            long max = 0;
            for (int g = 0; g < gt.ep(); g++) {
                max = Math.max(max, recv[g * 4] + recv[g * 4 + 1] + recv[g * 4 + 2] + recv[g * 4 + 3]);
            }
            this.staticMaxLoad = max;
            this.staticFloor = cost.staticLowerBound(gt, recv, max) * interval;
        }

        /** A placement weighed by the gate: the rule's busiest load, and its predicted seconds over the interval. */
        final class Candidate {
            final LayerPlacement p;
            final long maxLoad;
            /** At least the predicted seconds. */
            final double bound;
            private double seconds;

            private Candidate(LayerPlacement p, long maxLoad, double bound, double seconds) {
                this.p = p;
                this.maxLoad = maxLoad;
                this.bound = bound;
                this.seconds = seconds;
            }

            /** The exact predicted seconds, routing the rule's flows the first time they are asked for. */
            double seconds() {
                if (Double.isNaN(seconds)) {
                    seconds = evaluate(c, cost, gt, counts, demand, p, null, interval).seconds();
                }
                return seconds;
            }

            boolean balanced() {
                return imbalance(demand, maxLoad, gt.ep()) <= BALANCE_CAP;
            }
        }

        double staticSeconds() {
            if (Double.isNaN(staticSeconds)) {
                staticSeconds = cost.staticLayer(gt, staticP, demand.total(), demand.home(), staticMaxLoad).totalSec() * interval;
            }
            return staticSeconds;
        }

        Candidate score(LayerPlacement p) {
            if (p.equals(staticP)) {
                return new Candidate(p, staticMaxLoad, staticSeconds(), staticSeconds());
            }
            long max = cost.quotaRule().maxLoad(gt, p, counts, demand.total());
            return new Candidate(p, max, cost.upperBound(gt, p, max, demand.maxSent()) * interval, Double.NaN);
        }

        /** Exact, but the static floor and the candidate's bound usually settle it before any exact time is needed. */
        private boolean slowerThanStatic(Candidate k) {
            return k.bound > staticFloor && k.bound > staticSeconds() && k.seconds() > staticSeconds();
        }

        /** The first of {@code cands}, by predicted time, that is or can be topped up to balanced; null if none. */
        LayerPlacement pick(Candidate... cands) {
            Candidate[] byTime = cands.clone();
            if (byTime.length > 1) {
                Arrays.sort(byTime, (x, y) -> Double.compare(x.seconds(), y.seconds()));
            }
            for (Candidate k : byTime) {
                if (k.p.equals(staticP) || slowerThanStatic(k)) {
                    continue; // never predicted slower than the static layout, balanced or not
                }
                considered.add(k);
                if (!k.balanced()) {
                    LayerPlacement topped = rebalance(c, cost.quotaRule(), gt, counts, demand, k.p, k.maxLoad);
                    if (topped == k.p) {
                        continue;
                    }
                    k = score(topped);
                    considered.add(k);
                }
                if (k.balanced() && !slowerThanStatic(k)) {
                    return k.p;
                }
            }
            return null;
        }

        /** When no candidate balances: static if it is balanced, else the fastest of everything weighed, static included. */
        LayerPlacement fallback() {
            if (imbalance(demand, staticMaxLoad, gt.ep()) <= BALANCE_CAP) {
                return staticP;
            }
            Candidate fastest = null;
            for (Candidate k : considered) {
                if (fastest == null || k.seconds() < fastest.seconds()) {
                    fastest = k;
                }
            }
            return fastest != null && fastest.seconds() < staticSeconds() ? fastest.p : staticP;
        }
    }

    /**
     * Incremental re-plan: for each target, the slot changes from {@code current} to it (see {@link #changes}),
     * ordered by each one's own predicted gain; the prefixes of that order are candidates, scored over the next interval
     * with their one-off copies plus {@link #HYSTERESIS} of the current plan's time per new copy. The cheapest found wins and
     * keeping {@code current} is the empty prefix, so a set of moves is made only when its predicted gain over the
     * interval beats its cost, copy by copy on average, and prediction noise does not cause churn.
     */
    static LayerPlacement towards(PlanningContext c, CostModel cost, GroupTopology gt, long[] counts, Demand demand,
                                  LayerPlacement current, LayerPlacement[] targets, double interval) {
        LayerPlacement chargeFrom = c.mode() == Mode.REPLICATE ? current : null;
        double keep = score(c, cost, gt, counts, demand, current, chargeFrom, interval);
        // In fssdp mode a changed materialization is just a different gather (nothing moves beyond what every step
        // gathers anyway), so new copies are not priced there.
        double price = chargeFrom == null ? 0 : HYSTERESIS * Math.abs(keep);
        int ep = gt.ep();
        LayerPlacement pick = current;
        double pickScore = keep;
        for (LayerPlacement target : targets) {
            if (target.equals(current)) {
                continue;
            }
            // Order the changes by their own predicted gain (each alone on top of current), best first; ties keep the
            // node-local order of changes().
            java.util.List<long[]> ops = changes(gt, demand, current, target);
            int[][] lists = new int[ep][];
            for (int g = 0; g < ep; g++) {
                lists[g] = current.expertsOn(g);
            }
            for (long[] op : ops) {
                int g = (int) op[1];
                int[] before = lists[g];
                lists[g] = replace(before, (int) op[2], (int) op[3]);
                double sc = score(c, cost, gt, counts, demand, LayerPlacement.of(current.experts(), lists), chargeFrom, interval);
                lists[g] = before;
                op[0] = Double.doubleToLongBits(keep - sc);
            }
            ops.sort((x, y) -> Double.compare(Double.longBitsToDouble(y[0]), Double.longBitsToDouble(x[0])));
            // The cheapest prefix of that order: sizes 1, 2, 4, ... and all, then halving steps around the best so far
            // (the score falls while the big gains come in and rises as the priced copies pile up), about 3 log2(changes)
            // scores instead of one per prefix. The empty prefix is keeping {@code current}.
            int n = ops.size();
            java.util.function.IntToDoubleFunction scorePrefix = k ->
                    score(c, cost, gt, counts, demand, prefix(current, ops, k), chargeFrom, interval) + newCopies(ops, k) * price;
            double[] f = new double[n + 1];
            java.util.Arrays.fill(f, Double.NaN);
            f[0] = keep;
            int best = 0;
            for (int k = 1; k <= n; k = k == n ? n + 1 : Math.min(n, 2 * k)) {
                f[k] = scorePrefix.applyAsDouble(k);
                if (f[k] < f[best]) {
                    best = k;
                }
            }
            for (int d = Integer.highestOneBit(Math.max(1, best / 2)); d >= 1; d /= 2) {
                int around = best;
                for (int k : new int[] {around - d, around + d}) {
                    if (k >= 1 && k <= n && Double.isNaN(f[k])) {
                        f[k] = scorePrefix.applyAsDouble(k);
                        if (f[k] < f[best] || f[k] == f[best] && k < best) {
                            best = k;
                        }
                    }
                }
            }
            if (best > 0 && f[best] < pickScore) {
                pick = prefix(current, ops, best);
                pickScore = f[best];
            }
        }
        return pick;
    }

    /** {@code current} with the first {@code k} changes applied. */
    private static LayerPlacement prefix(LayerPlacement current, java.util.List<long[]> ops, int k) {
        int[][] lists = new int[current.gpus()][];
        for (int g = 0; g < lists.length; g++) {
            lists[g] = current.expertsOn(g);
        }
        for (int i = 0; i < k; i++) {
            long[] op = ops.get(i);
            lists[(int) op[1]] = replace(lists[(int) op[1]], (int) op[2], (int) op[3]);
        }
        return LayerPlacement.of(current.experts(), lists);
    }

    /** New copies among the first {@code k} changes: only they are priced (dropping a replica moves nothing). */
    private static int newCopies(java.util.List<long[]> ops, int k) {
        int n = 0;
        for (int i = 0; i < k; i++) {
            n += ops.get(i)[3] >= 0 ? 1 : 0;
        }
        return n;
    }

    /** {@code list} without {@code removed} (if >= 0) and with {@code added} (if >= 0). */
    private static int[] replace(int[] list, int removed, int added) {
        int[] next = new int[list.length + (added >= 0 ? 1 : 0)];
        int k = 0;
        for (int e : list) {
            if (e != removed) {
                next[k++] = e;
            }
        }
        if (added >= 0) {
            next[k++] = added;
        }
        return Arrays.copyOf(next, k);
    }

    /**
     * The slot changes that turn {@code current} into {@code target}, most valuable first: each replaces (or adds, or
     * drops) one copy on one GPU, as {value, gpu, removed or -1, added or -1}; its value is the node-local tokens of the
     * expert it brings minus those of the expert it evicts (ties: lower GPU, then lower added expert).
     */
    static java.util.List<long[]> changes(GroupTopology gt, Demand demand, LayerPlacement current, LayerPlacement target) {
        int ep = gt.ep();
        int experts = current.experts();
        java.util.List<long[]> ops = new java.util.ArrayList<>();
        for (int g = 0; g < ep; g++) {
            int[] removed = new int[current.expertCount(g)];
            int[] added = new int[target.expertCount(g)];
            int nr = 0;
            int na = 0;
            for (int i = 0; i < current.expertCount(g); i++) {
                int e = current.expertAt(g, i);
                if (!target.holds(g, e)) {
                    removed[nr++] = e;
                }
            }
            for (int i = 0; i < target.expertCount(g); i++) {
                int e = target.expertAt(g, i);
                if (!current.holds(g, e)) {
                    added[na++] = e;
                }
            }
            int node = gt.nodeIndex(g);
            for (int i = 0; i < Math.max(nr, na); i++) {
                int r = i < nr ? removed[i] : -1;
                int a = i < na ? added[i] : -1;
                long value = (a >= 0 ? demand.nodeDemand()[node * experts + a] : 0) - (r >= 0 ? demand.nodeDemand()[node * experts + r] : 0);
                ops.add(new long[] {value, g, r, a});
            }
        }
        ops.sort((x, y) -> x[0] != y[0] ? Long.compare(y[0], x[0]) : x[1] != y[1] ? Long.compare(x[1], y[1])
                : Long.compare(x[3], y[3]));
        return ops;
    }

    /**
     * The placement {@code target} with each node's replicas moved onto the GPUs of that node that already hold them in
     * {@code current}; the rest go to the node's free slots, the target's own GPU first, then ascending GPU.
     */
    static LayerPlacement align(GroupTopology gt, LayerPlacement target, LayerPlacement current, int slots) {
        int ep = gt.ep();
        int experts = target.experts();
        int[][] lists = new int[ep][];
        int[] count = new int[ep];
        int[][] reps = new int[ep][slots];
        for (int g = 0; g < ep; g++) {
            int first = StaticLayout.firstExpert(g, ep, experts);
            int homes = StaticLayout.homeCount(g, ep, experts);
            lists[g] = new int[homes + slots];
            for (int i = 0; i < homes; i++) {
                lists[g][i] = first + i;
            }
            count[g] = homes;
        }
        int[] repCount = new int[ep];
        boolean[] placed = new boolean[ep * (slots + 1)];
        // Pass 1: replicas the target wants on a node and the current placement already has on that node stay put.
        for (int g = 0; g < ep; g++) {
            int homes = StaticLayout.homeCount(g, ep, experts);
            int k = 0;
            for (int i = 0; i < target.expertCount(g); i++) {
                int e = target.expertAt(g, i);
                if (StaticLayout.home(e, ep, experts) != g) {
                    reps[g][k++] = e;
                }
            }
            for (int i = k; i < slots; i++) {
                reps[g][i] = -1;
            }
            count[g] = homes;
        }
        for (int g = 0; g < ep; g++) {
            for (int k = 0; k < slots; k++) {
                int e = reps[g][k];
                if (e < 0) {
                    continue;
                }
                int keepAt = -1;
                for (int x = 0; x < ep && keepAt < 0; x++) {
                    if (gt.nodeIndex(x) == gt.nodeIndex(g) && current.holds(x, e) && StaticLayout.home(e, ep, experts) != x
                            && repCount[x] < slots && !contains(lists[x], count[x], e)) {
                        keepAt = x;
                    }
                }
                if (keepAt >= 0) {
                    lists[keepAt][count[keepAt]++] = e;
                    repCount[keepAt]++;
                    placed[g * (slots + 1) + k] = true;
                }
            }
        }
        // Pass 2: the rest, on the target's GPU if it has room, else the node's first GPU with room.
        for (int g = 0; g < ep; g++) {
            for (int k = 0; k < slots; k++) {
                int e = reps[g][k];
                if (e < 0 || placed[g * (slots + 1) + k]) {
                    continue;
                }
                int at = -1;
                if (repCount[g] < slots && !contains(lists[g], count[g], e)) {
                    at = g;
                }
                for (int x = 0; x < ep && at < 0; x++) {
                    if (gt.nodeIndex(x) == gt.nodeIndex(g) && repCount[x] < slots && StaticLayout.home(e, ep, experts) != x
                            && !contains(lists[x], count[x], e)) {
                        at = x;
                    }
                }
                if (at >= 0) {
                    lists[at][count[at]++] = e;
                    repCount[at]++;
                }
            }
        }
        for (int g = 0; g < ep; g++) {
            lists[g] = java.util.Arrays.copyOf(lists[g], count[g]);
        }
        return LayerPlacement.of(experts, lists);
    }

    private static boolean contains(int[] list, int n, int e) {
        for (int i = 0; i < n; i++) {
            if (list[i] == e) {
                return true;
            }
        }
        return false;
    }

    /** Compute-only max/mean (busiest GPU over the mean, as the bench reports it) the from-scratch gate insists on first. */
    static final double BALANCE_CAP = 1.05;

    /** A candidate's predicted seconds over the interval and the quota rule's busiest GPU load on the predicted counts. */
    record Scored(double seconds, long maxLoad) {
    }

    private static double imbalance(Demand d, long maxLoad, int ep) {
        return d.all() == 0 ? 1.0 : maxLoad * (double) ep / d.all();
    }

    /**
     * {@code p} with replicas added in free slots, one at a time, while the quota rule's busiest GPU is above
     * {@link #BALANCE_CAP} × mean: each new copy is of the expert the rule's fill cannot place at that level (or the
     * heaviest single-copy expert of a GPU whose forced load alone exceeds it), on the least-loaded GPU with a free slot
     * of the node that sends that expert the most tokens, else on the least-loaded GPU with a free slot anywhere; it is
     * kept only if the rule's busiest GPU gets lighter. Shedding balances planned loads, but the rule's greedy does not
     * always reproduce them; this closes the gap with the rule itself in the loop.
     */
    static LayerPlacement rebalance(PlanningContext c, QuotaRule rule, GroupTopology gt, long[] counts, Demand d,
                                    LayerPlacement p, long max) {
        int ep = gt.ep();
        int experts = p.experts();
        int nc = gt.nodeCount();
        long aim = (long) Math.floor(BALANCE_CAP * d.all() / ep);
        int[][] lists = new int[ep][];
        int[] free = new int[ep];
        for (int g = 0; g < ep; g++) {
            lists[g] = p.expertsOn(g);
            free[g] = c.redundantSlots() - p.nonHomeCopies(g);
        }
        int guard = c.redundantSlots() * ep;
        QuotaRule.Probe now = max > aim ? rule.probe(gt, p, counts, d.total(), aim) : null;
        while (now != null && now.maxLoad() > aim && guard-- > 0) {
            int u = now.unplacedAtAim();
            long[] load = now.gpuLoad();
            int e = u;
            if (u >= experts) {
                // GPU u - experts is over the aim on its single-copy experts alone: replicate the heaviest of them.
                int g = u - experts;
                e = -1;
                for (int x : lists[g]) {
                    if (p.copies(x) == 1 && (e < 0 || d.total()[x] > d.total()[e])) {
                        e = x;
                    }
                }
            }
            if (e < 0) {
                break;
            }
            int bestNode = -1;
            for (int n = 0; n < nc; n++) {
                if (bestNode < 0 || d.nodeDemand()[n * experts + e] > d.nodeDemand()[bestNode * experts + e]) {
                    bestNode = n;
                }
            }
            int nearT = -1;
            int anyT = -1;
            for (int g = 0; g < ep; g++) {
                if (free[g] <= 0 || p.holds(g, e)) {
                    continue;
                }
                if (anyT < 0 || load[g] < load[anyT]) {
                    anyT = g;
                }
                if (gt.nodeIndex(g) == bestNode && (nearT < 0 || load[g] < load[nearT])) {
                    nearT = g;
                }
            }
            boolean accepted = false;
            for (int t : new int[] {nearT, anyT}) {
                if (t < 0 || accepted) {
                    continue;
                }
                int[] before = lists[t];
                lists[t] = replace(before, -1, e);
                LayerPlacement p2 = LayerPlacement.of(experts, lists);
                QuotaRule.Probe next = rule.probe(gt, p2, counts, d.total(), aim);
                // Progress: the busiest GPU got lighter, or (no heavier) the rule now places this expert at the aim.
                if (next.maxLoad() < now.maxLoad() || next.maxLoad() == now.maxLoad() && next.unplacedAtAim() != u) {
                    p = p2;
                    now = next;
                    free[t]--;
                    accepted = true;
                } else {
                    lists[t] = before;
                }
            }
            if (!accepted) {
                break;
            }
        }
        return p;
    }

    /** Predicted seconds over the interval: steady-state time × interval, plus the one-off copy cost of copies not in {@code chargeFrom}. */
    static double score(PlanningContext c, CostModel cost, GroupTopology gt, long[] counts, Demand d, LayerPlacement p,
                        LayerPlacement chargeFrom, double interval) {
        return evaluate(c, cost, gt, counts, d, p, chargeFrom, interval).seconds();
    }

    static Scored evaluate(PlanningContext c, CostModel cost, GroupTopology gt, long[] counts, Demand d, LayerPlacement p,
                           LayerPlacement chargeFrom, double interval) {
        LayerCost steady = cost.quotaRuleLayer(gt, p, counts, d.total(), d.home(), null);
        double s = steady.totalSec() * interval;
        if (chargeFrom != null && p != chargeFrom) {
            // The one-off copy only changes parameter traffic: recompute that part alone.
            s += cost.withMigration(gt, p, steady, chargeFrom) - steady.totalSec();
        }
        return new Scored(s, steady.maxTokens());
    }

    /**
     * One layer's demand: per-expert totals, per-(node, expert) tokens ({@code nodeDemand[node * experts + e]}), the
     * most tokens any source sends, and the all-at-home link sums (what each GPU receives at once; what each sends, a
     * second pass over the counts, only when a scoring needs it).
     */
    static final class Demand {
        private final GroupTopology gt;
        private final long[] counts;
        private final long[] total;
        private final long[] nodeDemand;
        private final long all;
        private final long maxSent;
        private final long[] homeRecv;
        private LinkTokens.Home home;

        private Demand(GroupTopology gt, long[] counts, long[] total, long[] nodeDemand, long all, long maxSent) {
            this.gt = gt;
            this.counts = counts;
            this.total = total;
            this.nodeDemand = nodeDemand;
            this.all = all;
            this.maxSent = maxSent;
            this.homeRecv = LinkTokens.Home.received(gt, counts, total.length, nodeDemand, total);
        }

        static Demand of(GroupTopology gt, long[] counts, int experts) {
            int ep = gt.ep();
            int nc = gt.nodeCount();
            if (ep > experts) {
                throw new IllegalArgumentException("EP group of " + ep + " GPUs exceeds the " + experts + " experts");
            }
            long[] total = new long[experts];
            long[] nodeDemand = new long[experts * nc];
            long signs = 0;
            long maxSent = 0;
            for (int s = 0; s < ep; s++) {
                int row = s * experts;
                int nodeRow = gt.nodeIndex(s) * experts;
                long sent = 0;
                for (int e = 0; e < experts; e++) {
                    long x = counts[row + e];
                    nodeDemand[nodeRow + e] += x;
                    signs |= x;
                    sent += x;
                }
                maxSent = Math.max(maxSent, sent);
            }
            if (signs < 0) {
                for (int i = 0; i < ep * experts; i++) {
                    if (counts[i] < 0) {
                        throw new IllegalArgumentException("negative count at source " + i / experts + " expert " + i % experts);
                    }
                }
            }
            for (int x = 0; x < nc; x++) {
                for (int e = 0; e < experts; e++) {
                    total[e] += nodeDemand[x * experts + e];
                }
            }
            long all = 0;
            for (long t : total) {
                all += t;
            }
            return new Demand(gt, counts, total, nodeDemand, all, maxSent);
        }

        long[] total() {
            return total;
        }

        long[] nodeDemand() {
            return nodeDemand;
        }

        long all() {
            return all;
        }

        /** The most tokens one source sends in this layer (its row of counts), wherever they go. */
        long maxSent() {
            return maxSent;
        }

        /** What each GPU receives by link class when every expert runs at home ({@code [g * 4 + class]}). */
        long[] homeRecv() {
            return homeRecv;
        }

        /** The all-at-home link sums, sent and received; the sent half is summed on first use. */
        LinkTokens.Home home() {
            if (home == null) {
                home = new LinkTokens.Home(LinkTokens.Home.sent(gt, counts, total.length), homeRecv);
            }
            return home;
        }
    }

    /** Bytes one token assignment moves over its four all-to-alls (dispatch and combine, forward and backward). */
    private static double tokenBytes(PlanningContext c) {
        return 4.0 * c.shape().tokenBytes();
    }

    /** Bytes a replica moves every step: refresh and gradient return in replicate mode, nothing extra in fssdp. */
    private static double refreshBytes(PlanningContext c) {
        return c.mode() == Mode.REPLICATE ? c.shape().weightBytesPerExpert() + c.shape().gradBytesPerExpert() : 0;
    }

    /**
     * The local-share candidates' greedy: first up to {@code localReplicas} replicas go where a node's own tokens for an
     * expert would otherwise cross the network (largest net saving first); then the busiest GPUs shed load.
     */
    static LayerPlacement shed(PlanningContext c, GroupTopology gt, Demand demand, int localReplicas) {
        return shed(c, gt, demand, localReplicas, null);
    }

    /**
     * As {@link #shed(PlanningContext, GroupTopology, Demand, int)}; {@code picks} (may be null) records the local
     * replicas on its first use and replays them on the next ones: the first k picks do not depend on how many follow.
     */
    static LayerPlacement shed(PlanningContext c, GroupTopology gt, Demand demand, int localReplicas, LocalPicks picks) {
        int ep = gt.ep();
        int experts = c.shape().experts();
        int slots = c.redundantSlots();
        int nc = gt.nodeCount();
        long[] total = demand.total();
        long[] nodeDemand = demand.nodeDemand();
        long all = demand.all();
        double tokenBytes = tokenBytes(c);
        double refreshBytes = refreshBytes(c);
        State st = State.fresh(ep, experts, slots, total);
        long target = (all + ep - 1) / ep;
        if (picks != null && picks.recorded()) {
            picks.replay(st, localReplicas);
        } else if (localReplicas > 0) {
            placeLocal(gt, st, nodeDemand, nc, localReplicas, tokenBytes, refreshBytes, picks, null);
        }
        new Shedder(gt, st, target, target / 1000, nodeDemand, nc, tokenBytes, refreshBytes).run();
        return st.toPlacement();
    }

    /**
     * Puts the replicas of {@code seed} into a fresh state while their node's tokens still outweigh their refresh
     * traffic; each serves its node's tokens first.
     */
    private static void keepUseful(GroupTopology gt, State st, LayerPlacement seed, long[] nodeDemand, double tokenBytes,
                                   double refreshBytes) {
        int ep = st.ep;
        int experts = st.experts;
        for (int g = 0; g < ep; g++) {
            for (int i = 0; i < seed.expertCount(g); i++) {
                int e = seed.expertAt(g, i);
                long d = nodeDemand[gt.nodeIndex(g) * experts + e];
                boolean homeNode = gt.nodeIndex(StaticLayout.home(e, ep, experts)) == gt.nodeIndex(g);
                if (StaticLayout.home(e, ep, experts) != g && st.hasFreeSlot(g)
                        && d * tokenBytes > (homeNode ? 0 : refreshBytes)) {
                    st.addReplica(e, g);
                    st.shift(e, g, d);
                }
            }
        }
    }

    /**
     * How many times its refresh and gradient bytes a local replica of {@link #balanceThenLocal} must save in network
     * token bytes. Every copy also costs the per-step quota rule work on every rank, a working copy's memory and a
     * reshuffle of the balanced loads; replicas that barely pay for their parameter traffic buy little. Measured on
     * the docs suite and the whole-model input (docs/planner.md): 1 makes the best plans but a third more quota-rule
     * work per step; 3 keeps most of that quality, with the rule's work and the plan time below the local-share
     * planner's; from 6 on, OLMoE 8x8 falls below 0.95 of ideal.
     */
    static final double LOCAL_GAIN = 3;

    /**
     * The from-scratch first choice: the shedding greedy with every slot open (balance first), then local replicas in
     * the slots it left, keeping one per node of the group free for the gate's top-up, skipping any that does not
     * save {@link #LOCAL_GAIN} times its parameter bytes or whose refresh would not fit under the layer's compute
     * ({@link ParamBudget}), then the greedy again for the load they moved. With a {@code seed} (the plan in use: the
     * incremental re-plan's repair target) the seed's replicas that still pay start in place, and those balance leaves
     * unused are dropped before the local replicas.
     */
    static LayerPlacement balanceThenLocal(PlanningContext c, CostModel cost, GroupTopology gt, Demand demand,
                                           LayerPlacement seed) {
        int ep = gt.ep();
        int experts = c.shape().experts();
        int slots = c.redundantSlots();
        int nc = gt.nodeCount();
        double tokenBytes = tokenBytes(c);
        double refreshBytes = refreshBytes(c);
        State st = State.fresh(ep, experts, slots, demand.total());
        if (seed != null) {
            keepUseful(gt, st, seed, demand.nodeDemand(), tokenBytes, refreshBytes);
        }
        long target = (demand.all() + ep - 1) / ep;
        Shedder sh = new Shedder(gt, st, target, target / 1000, demand.nodeDemand(), nc, tokenBytes, refreshBytes);
        sh.run();
        if (seed != null && st.pruneUnused() > 0) {
            sh.run();
        }
        int free = 0;
        for (int g = 0; g < ep; g++) {
            free += slots - st.replicaCount[g];
        }
        int locals = free - nc;
        if (locals > 0) {
            ParamBudget budget = null;
            if (c.mode() == Mode.REPLICATE) {
                budget = new ParamBudget(gt, c.shape().weightBytesPerExpert(), c.shape().gradBytesPerExpert(),
                        cost.computeSeconds(target, gt.hardware()));
                for (int e = 0; e < experts; e++) {
                    for (int k = 1; k < st.copyCount(e); k++) {
                        budget.add(st.copyGpu(e, 0), st.copyGpu(e, k), 1);
                    }
                }
            }
            placeLocal(gt, st, demand.nodeDemand(), nc, locals, tokenBytes, LOCAL_GAIN * refreshBytes, null, budget);
            sh.run();
        }
        return st.toPlacement();
    }

    /**
     * Replica refresh and gradient-return bytes per GPU, link (NVLink, NIC, cross-rack) and direction, against what each
     * link moves in one layer's compute time at the balanced load: a replica that keeps every link within that is hidden
     * under compute by the cost model's overlap rule. Local replicas save tokens on the network, but a hot expert's
     * home refreshes every one of them over its own links; this keeps them from turning that into exposed time.
     */
    static final class ParamBudget {
        private final GroupTopology gt;
        private final double weightBytes;
        private final double gradBytes;
        /** [g * 6 + direction * 3 + link]: direction 0 sends, 1 receives; link 0 NVLink, 1 NIC, 2 cross-rack. */
        private final double[] bytes;
        private final double[] cap = new double[3];

        ParamBudget(GroupTopology gt, double weightBytes, double gradBytes, double computeSec) {
            this.gt = gt;
            this.weightBytes = weightBytes;
            this.gradBytes = gradBytes;
            this.bytes = new double[gt.ep() * 6];
            cap[0] = computeSec * gt.hardware().bytesPerSecond(LinkClass.NVLINK);
            cap[1] = computeSec * gt.hardware().bytesPerSecond(LinkClass.NETWORK);
            cap[2] = computeSec * gt.hardware().bytesPerSecond(LinkClass.CROSS_RACK);
        }

        /** Counts a replica on g of an expert homed on h only if every link of both stays within budget; whether it did. */
        boolean tryAdd(int h, int g) {
            add(h, g, 1);
            if (within(h) && within(g)) {
                return true;
            }
            add(h, g, -1);
            return false;
        }

        private boolean within(int g) {
            for (int i = 0; i < 6; i++) {
                if (bytes[g * 6 + i] > cap[i % 3]) {
                    return false;
                }
            }
            return true;
        }

        /**
         * Counts ({@code sign} 1) or uncounts (-1) a replica on g of an expert homed on h: the owner sends the weights
         * and receives the gradient, the replica the other way round.
         */
        void add(int h, int g, int sign) {
            int cls = gt.linkClass(h, g);
            if (cls != 0) {
                count(h, 0, cls, sign * weightBytes);
                count(g, 1, cls, sign * weightBytes);
                count(g, 0, cls, sign * gradBytes);
                count(h, 1, cls, sign * gradBytes);
            }
        }

        /** Same-node traffic is NVLink; any other crosses the NIC, and cross-rack traffic also the rack link. */
        private void count(int g, int direction, int cls, double b) {
            int at = g * 6 + direction * 3;
            if (cls == LinkClass.NVLINK.ordinal()) {
                bytes[at] += b;
                return;
            }
            bytes[at + 1] += b;
            if (cls == LinkClass.CROSS_RACK.ordinal()) {
                bytes[at + 2] += b;
            }
        }
    }

    /** Opens replicas for (expert, node) pairs whose node has no copy, by net inter-node bytes saved, best first. */
    private static void placeLocal(GroupTopology gt, State st, long[] nodeDemand, int nc, int limit, double tokenBytes,
                                   double refreshBytes, LocalPicks record, ParamBudget budget) {
        int ep = gt.ep();
        int experts = st.experts;
        if (nc > 255 || experts > (1 << 14)) {
            return; // outside the packed sort key's range: balance only
        }
        // Candidates by weighted demand descending, then expert, then node (demand < 2^38; checked).
        // Tokens that would cross racks count extra, by how much slower the cross-rack link is than the NIC.
        double crossRackWeight = Math.max(1, gt.hardware().nicGBps() / gt.hardware().crossRackGBps());
        // Pairs whose node already has a copy are left out, and each is valued with the copies already placed: values
        // only fall as copies are added, so the lazy re-queue below still pops the best current pair.
        LongMaxHeap queue = new LongMaxHeap(experts);
        // nodeCoveredBy[x] == e + 1: node x holds a copy of expert e (likewise racks); no clearing between experts.
        int[] nodeCoveredBy = new int[nc];
        int[] rackCoveredBy = new int[gt.rackCount()];
        for (int e = 0; e < experts; e++) {
            for (int c = 0; c < st.copyCount(e); c++) {
                int g = st.copyGpu(e, c);
                nodeCoveredBy[gt.nodeIndex(g)] = e + 1;
                rackCoveredBy[gt.rackIndex(g)] = e + 1;
            }
            for (int x = 0; x < nc; x++) {
                long d = nodeDemand[x * experts + e];
                if (nodeCoveredBy[x] != e + 1 && d * tokenBytes > refreshBytes && d < (1L << 38)) {
                    queue.add(key(rackCoveredBy[gt.rackOfNode(x)] == e + 1 ? d : (long) (d * crossRackWeight), e, x));
                }
            }
        }
        queue.heapify();
        int placed = 0;
        while (!queue.isEmpty() && placed < limit) {
            long k = queue.pop();
            int e = (1 << 14) - 1 - (int) ((k >>> 8) & ((1 << 14) - 1));
            int x = 255 - (int) (k & 255);
            long d = nodeDemand[x * experts + e];
            boolean coveredNode = false;
            boolean coveredRack = false;
            for (int c = 0; c < st.copyCount(e); c++) {
                int g = st.copyGpu(e, c);
                coveredNode |= gt.nodeIndex(g) == x;
                coveredRack |= gt.rackIndex(g) == gt.rackOfNode(x);
            }
            if (coveredNode) {
                continue;
            }
            // A copy placed meanwhile in this rack makes the pair worth less: re-queue it at its current value.
            long now = key(coveredRack ? d : (long) (d * crossRackWeight), e, x);
            if (now < k) {
                queue.push(now);
                continue;
            }
            int best = -1;
            for (int i = gt.nodeMemberStart(x); i < gt.nodeMemberStart(x + 1); i++) {
                int g = gt.nodeMember(i);
                if (st.hasFreeSlot(g) && (best < 0 || st.load[g] < st.load[best])) {
                    best = g;
                }
            }
            if (best < 0 || budget != null && !budget.tryAdd(StaticLayout.home(e, ep, experts), best)) {
                continue;
            }
            // The new copy takes this node's tokens from the expert's most loaded copy.
            st.addReplica(e, best);
            st.shift(e, best, d);
            placed++;
            if (record != null) {
                record.add(e, best, d);
            }
        }
        if (record != null) {
            record.done();
        }
    }

    /** The local replicas placeLocal opened on a fresh state, in order: expert, GPU and tokens shifted. */
    static final class LocalPicks {
        private final int[] expert;
        private final int[] gpu;
        private final long[] tokens;
        private int n;
        private boolean recorded;

        LocalPicks(int capacity) {
            expert = new int[capacity];
            gpu = new int[capacity];
            tokens = new long[capacity];
        }

        boolean recorded() {
            return recorded;
        }

        int count() {
            return n;
        }

        void add(int e, int g, long d) {
            expert[n] = e;
            gpu[n] = g;
            tokens[n++] = d;
        }

        void done() {
            recorded = true;
        }

        /** Applies the first {@code limit} picks (all there are, if fewer) to a fresh state. */
        void replay(State st, int limit) {
            if (limit > expert.length) {
                throw new IllegalArgumentException("recorded " + expert.length + " picks at most, asked for " + limit);
            }
            for (int i = 0; i < Math.min(limit, n); i++) {
                st.addReplica(expert[i], gpu[i]);
                st.shift(expert[i], gpu[i], tokens[i]);
            }
        }
    }

    /** Packs (value, expert, node) so that larger values, then lower experts, then lower nodes sort higher. */
    private static long key(long value, int e, int node) {
        return (value << 22) | ((long) ((1 << 14) - 1 - e) << 8) | (255 - Math.min(255, node));
    }

    /** The balancing loop: while the busiest GPU is above target, shift or replicate one of its experts. */
    private static final class Shedder {
        final GroupTopology gt;
        final State st;
        final long target;
        final long tol;
        final long[] nodeDemand;
        final int nc;
        final double tokenBytes;
        final double refreshBytes;

        Shedder(GroupTopology gt, State st, long target, long tol, long[] nodeDemand, int nc, double tokenBytes,
                double refreshBytes) {
            this.gt = gt;
            this.st = st;
            this.target = target;
            this.tol = tol;
            this.nodeDemand = nodeDemand;
            this.nc = nc;
            this.tokenBytes = tokenBytes;
            this.refreshBytes = refreshBytes;
        }

        void run() {
            int ep = st.ep;
            int experts = st.experts;
            // The GPUs a new replica can go to: a free slot and load below target (kept up to date as loads move).
            long[] open = new long[(ep + 63) >>> 6];
            for (int g = 0; g < ep; g++) {
                updateOpen(open, g);
            }
            // The busiest GPU not yet found stuck (no expert of it could shed).
            BusiestTree busiest = new BusiestTree(st.load, ep);
            int guard = 4 * (st.slots * ep + ep + experts) + 16;
            int[] candE = new int[StaticLayout.maxHomeCount(ep, experts) + st.slots];
            long[] candA = new long[candE.length];
            boolean[] covered = new boolean[nc];
            while (guard-- > 0) {
                int gmax = busiest.busiest();
                if (gmax < 0 || st.load[gmax] - target <= tol) {
                    break;
                }
                long excess = st.load[gmax] - target;
                int n = st.expertsOn(gmax, candE, candA);
                boolean progress = false;
                // A new replica needs an open GPU; once balance has used them all up (most iterations near the end),
                // no expert of gmax can open one.
                boolean room = false;
                for (long w : open) {
                    room |= w != 0;
                }
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
                        moved(open, busiest, gmax, bestG);
                        progress = true;
                        break;
                    }
                    // Option 2: open a replica.
                    if (!room) {
                        continue;
                    }
                    long need = Math.min(excess, a);
                    Arrays.fill(covered, false);
                    for (int k = 0; k < st.copyCount(e); k++) {
                        covered[gt.nodeIndex(st.copyGpu(e, k))] = true;
                    }
                    int homeNode = gt.nodeIndex(StaticLayout.home(e, ep, experts));
                    long useful = Math.max(1, Math.min(need, target) / 8);
                    int t = chooseTarget(gt, st, open, e, gmax, useful, target, covered, nodeDemand, homeNode, tokenBytes,
                            refreshBytes);
                    if (t >= 0) {
                        st.addReplica(e, t);
                        st.move(e, gmax, t, Math.min(need, target - st.load[t]));
                        moved(open, busiest, gmax, t);
                        progress = true;
                    }
                }
                if (!progress) {
                    busiest.exclude(gmax);
                }
            }
        }

        /** After load moved from GPU {@code from} to GPU {@code to}: both re-read by the open set and the tree. */
        private void moved(long[] open, BusiestTree busiest, int from, int to) {
            updateOpen(open, from);
            updateOpen(open, to);
            busiest.update(from);
            busiest.update(to);
        }

        /** Sets or clears g's bit in {@code open}: whether it has a free slot and load below target. */
        private void updateOpen(long[] open, int g) {
            if (st.hasFreeSlot(g) && st.load[g] < target) {
                open[g >>> 6] |= 1L << g;
            } else {
                open[g >>> 6] &= ~(1L << g);
            }
        }
    }

    /**
     * The GPU for a new copy of e: the best by {@link #betterTarget} among the {@code open} GPUs (a free slot and load
     * below target) without a copy of e that have room for a useful share ({@code useful} tokens below target); if none
     * has that much room, the best open one.
     */
    private static int chooseTarget(GroupTopology gt, State st, long[] open, int e, int src, long useful, long target,
                                    boolean[] covered, long[] nodeDemand, int homeNode, double tokenBytes,
                                    double refreshBytes) {
        int srcNode = gt.nodeIndex(src);
        int best = -1;
        double bestScore = 0;
        long bestSlack = 0;
        int any = -1;
        double anyScore = 0;
        long anySlack = 0;
        for (int w = 0; w < open.length; w++) {
            for (long bits = open[w]; bits != 0; bits &= bits - 1) {
                int g = (w << 6) + Long.numberOfTrailingZeros(bits);
                if (st.holds(e, g)) {
                    continue;
                }
                long slack = target - st.load[g];
                int n = gt.nodeIndex(g);
                double score = (covered[n] ? 0 : nodeDemand[n * st.experts + e] * tokenBytes) - (n == homeNode ? 0 : refreshBytes);
                if (slack >= useful && (best < 0 || betterTarget(gt, srcNode, g, score, slack, best, bestScore, bestSlack))) {
                    best = g;
                    bestScore = score;
                    bestSlack = slack;
                }
                if (any < 0 || betterTarget(gt, srcNode, g, score, slack, any, anyScore, anySlack)) {
                    any = g;
                    anyScore = score;
                    anySlack = slack;
                }
            }
        }
        return best >= 0 ? best : any;
    }

    /** Higher score first (net bytes saved); on ties a GPU on the source's node, then more room; else the earlier GPU. */
    private static boolean betterTarget(GroupTopology gt, int srcNode, int g, double score, long slack, int best,
                                        double bestScore, long bestSlack) {
        if (score != bestScore) {
            return score > bestScore;
        }
        boolean near = gt.nodeIndex(g) == srcNode;
        boolean bestNear = gt.nodeIndex(best) == srcNode;
        return near != bestNear ? near : slack > bestSlack;
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
        /** held[e * ep + g]: GPU g has a copy of expert e. */
        final boolean[] held;

        /** The thread's last state, kept for the next shed of the same shape (a plan sheds several times per layer). */
        private static final ThreadLocal<State> LAST = new ThreadLocal<>();

        /** A state with every expert on its home only; reuses the thread's previous one when the shape matches. */
        static State fresh(int ep, int experts, int slots, long[] total) {
            State st = LAST.get();
            if (st == null || st.ep != ep || st.experts != experts || st.slots != slots) {
                st = new State(ep, experts, slots);
                LAST.set(st);
            }
            st.reset(total);
            return st;
        }

        private State(int ep, int experts, int slots) {
            this.ep = ep;
            this.experts = experts;
            this.slots = slots;
            this.load = new long[ep];
            this.copies = new int[experts];
            this.gpuOf = new int[experts][];
            this.amount = new long[experts][];
            this.replicasOn = new int[ep][slots];
            this.replicaCount = new int[ep];
            this.held = new boolean[experts * ep];
            for (int e = 0; e < experts; e++) {
                gpuOf[e] = new int[2];
                amount[e] = new long[2];
            }
        }

        private void reset(long[] total) {
            Arrays.fill(load, 0);
            Arrays.fill(replicaCount, 0);
            for (int e = 0; e < experts; e++) {
                for (int k = 0; k < copies[e]; k++) {
                    held[e * ep + gpuOf[e][k]] = false;
                }
                int h = StaticLayout.home(e, ep, experts);
                gpuOf[e][0] = h;
                held[e * ep + h] = true;
                amount[e][0] = total[e];
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
            return held[e * ep + g];
        }

        void addReplica(int e, int g) {
            if (copies[e] == gpuOf[e].length) {
                gpuOf[e] = Arrays.copyOf(gpuOf[e], copies[e] * 2);
                amount[e] = Arrays.copyOf(amount[e], copies[e] * 2);
            }
            gpuOf[e][copies[e]] = g;
            held[e * ep + g] = true;
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

        /** Moves up to {@code d} of expert e's load from its most loaded copy to its copy on GPU g. */
        void shift(int e, int g, long d) {
            int from = 0;
            for (int k = 1; k < copies[e]; k++) {
                if (amount[e][k] > amount[e][from]) {
                    from = k;
                }
            }
            int fromGpu = gpuOf[e][from];
            long m = Math.min(d, amount[e][from]);
            if (fromGpu != g && m > 0) {
                move(e, fromGpu, g, m);
            }
        }

        /** Drops replicas that carry no load; returns how many. */
        int pruneUnused() {
            int dropped = 0;
            for (int e = 0; e < experts; e++) {
                int w = 1;
                for (int k = 1; k < copies[e]; k++) {
                    if (amount[e][k] > 0) {
                        gpuOf[e][w] = gpuOf[e][k];
                        amount[e][w++] = amount[e][k];
                    } else {
                        held[e * ep + gpuOf[e][k]] = false;
                        dropped++;
                    }
                }
                copies[e] = w;
            }
            if (dropped > 0) {
                Arrays.fill(replicaCount, 0);
                for (int e = 0; e < experts; e++) {
                    for (int k = 1; k < copies[e]; k++) {
                        int g = gpuOf[e][k];
                        replicasOn[g][replicaCount[g]++] = e;
                    }
                }
            }
            return dropped;
        }

        /** Each GPU's list built ascending: its replicas (never one of its homes) merged into its home range. */
        LayerPlacement toPlacement() {
            int[][] lists = new int[ep][];
            int[] reps = new int[slots];
            for (int g = 0; g < ep; g++) {
                int first = StaticLayout.firstExpert(g, ep, experts);
                int homes = StaticLayout.homeCount(g, ep, experts);
                int n = replicaCount[g];
                System.arraycopy(replicasOn[g], 0, reps, 0, n);
                Arrays.sort(reps, 0, n);
                int[] l = new int[homes + n];
                int k = 0;
                int r = 0;
                while (r < n && reps[r] < first) {
                    l[k++] = reps[r++];
                }
                for (int i = 0; i < homes; i++) {
                    l[k++] = first + i;
                }
                while (r < n) {
                    l[k++] = reps[r++];
                }
                lists[g] = l;
            }
            return LayerPlacement.ofAscending(experts, lists);
        }
    }
}
