package dev.ballast.tools.exact;

import com.google.ortools.Loader;
import com.google.ortools.linearsolver.MPConstraint;
import com.google.ortools.linearsolver.MPSolver;
import com.google.ortools.linearsolver.MPVariable;
import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.LinkClass;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;
import dev.ballast.planner.model.StaticLayout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The placement-and-routing problem of one layer as a MILP (docs/cost-model.md, "Exact optimum on small instances"),
 * solved by SCIP (through OR-Tools) on one thread. Every term the cost model charges in steady state is modelled:
 * <pre>
 * minimise 4 A + Z
 *   Z >= kappa t,  Z >= P                         (compute + exposed parameter time = max(compute, param))
 *   t >= tokens GPU g computes, t integer          (the busiest GPU's tokens)
 *   A >= bytes / rate per GPU, direction and link  (NVLink; network + cross-rack on the NIC; cross-rack)
 *   P >= the same for parameter bytes              (refresh + gradient of every non-master copy, amortized master
 *                                                   migration; FSSDP: gathers and reduce-scatters of every copy)
 *   x[e][g] binary (copy), sum_e x[e][g] <= S, sum_g x[e][g] >= 1
 *   m[e][g] binary (master) <= x[e][g], sum_g m[e][g] = 1
 *   y[s][e][g] >= 0 tokens s sends to e's copy on g, sum_g y = c[s][e], y <= c[s][e] x[e][g]
 *   z[e][h][g] in [0, 1] copy g refreshed from master h: sum_h z >= x[e][g] - m[e][g], z <= m[e][h]
 * </pre>
 * Routing is continuous: a relaxation of the integer token flows the quota rule produces, so the optimum is a lower
 * bound for every integer routing too. Time is modelled in microseconds to keep the coefficients well scaled.
 */
public final class PlacementMilp {
    static final double US = 1e6;
    private static final int SEND = 0;
    private static final int RECV = 1;
    private static final double INF = Double.POSITIVE_INFINITY;

    private PlacementMilp() {
    }

    /**
     * Solves {@code p} within {@code timeLimitMillis} of wall time. With masters free (replicate mode) the restriction
     * to masters at home, which SCIP solves far faster, runs first on a quarter of the time: its plan seeds the full
     * search and stands as the incumbent if the search finds none better.
     */
    public static ExactSolution solve(LayerProblem p, long timeLimitMillis) {
        Loader.loadNativeLibraries();
        long t0 = System.nanoTime();
        double closed = new CostModel(p.shape(), p.mode(), p.replanInterval())
                .lowerBound(p.group(), p.counts(), p.slotsPerGpu());
        Solved seed = null;
        if (p.mode() == Mode.REPLICATE && p.masters() == Masters.FREE) {
            seed = run(p.withMasters(Masters.HOME), timeLimitMillis / 4, null);
        }
        long left = Math.max(1, timeLimitMillis - (System.nanoTime() - t0) / 1_000_000);
        Solved s = run(p, left, seed == null ? null : seed.placement());
        if (s == null && seed == null) {
            throw new IllegalStateException("the MILP found no plan within " + timeLimitMillis + " ms");
        }
        boolean seedWins = s == null || seed != null && seed.incumbent() < s.incumbent();
        Solved best = seedWins ? seed : s;
        boolean optimal = s != null && s.optimal() && !seedWins;
        // Only the full problem's bound is valid for it; the closed-form bound always is.
        double bound = optimal ? best.incumbent()
                : Math.min(best.incumbent(), Math.max(closed, s == null ? 0 : s.bestBound()));
        return new ExactSolution(best.incumbent(), bound, optimal, best.placement(), (System.nanoTime() - t0) / 1_000_000);
    }

    /** One solver run's outcome in seconds. */
    private record Solved(boolean optimal, double incumbent, double bestBound, LayerPlacement placement) {
    }

    /** Solves {@code p} once, starting from {@code hint} if given; null when no plan was found in time. */
    private static Solved run(LayerProblem p, long timeLimitMillis, LayerPlacement hint) {
        Built mip = new Built(p, "SCIP");
        try {
            mip.solver.setTimeLimit(timeLimitMillis);
            mip.solver.setNumThreads(1);
            if (hint != null) {
                mip.hint(hint);
            }
            MPSolver.ResultStatus status = mip.solver.solve();
            if (status == MPSolver.ResultStatus.NOT_SOLVED) {
                return null;
            }
            if (status != MPSolver.ResultStatus.OPTIMAL && status != MPSolver.ResultStatus.FEASIBLE) {
                throw new IllegalStateException("the MILP found no feasible plan (" + status + ") for a problem that has one");
            }
            return new Solved(status == MPSolver.ResultStatus.OPTIMAL, mip.solver.objective().value() / US,
                    mip.solver.objective().bestBound() / US, mip.placement());
        } finally {
            mip.solver.delete();
        }
    }

    /** The model for one problem, on a MILP engine (SCIP) or, with every copy variable fixed, an LP engine (GLOP). */
    static final class Built {
        final LayerProblem p;
        final MPSolver solver;
        final MPVariable[][] x;
        final MPVariable[][] m; // null unless masters can move (replicate mode, Masters.FREE)
        /** Bytes per (GPU, direction, link class) as linear terms: token flows and parameter traffic apart. */
        final Map<MPVariable, Double>[][][] tokenBytes;
        final Map<MPVariable, Double>[][][] paramBytes;

        @SuppressWarnings("unchecked")
        Built(LayerProblem p, String engine) {
            this.p = p;
            this.solver = MPSolver.createSolver(engine);
            int ep = p.ep();
            int experts = p.experts();
            GroupTopology gt = p.group();
            MoeShape shape = p.shape();
            tokenBytes = new Map[ep][2][4];
            paramBytes = new Map[ep][2][4];
            for (int g = 0; g < ep; g++) {
                for (int d = 0; d < 2; d++) {
                    for (int k = 0; k < 4; k++) {
                        tokenBytes[g][d][k] = new LinkedHashMap<>();
                        paramBytes[g][d][k] = new LinkedHashMap<>();
                    }
                }
            }
            boolean replicate = p.mode() == Mode.REPLICATE;
            boolean movable = replicate && p.masters() == Masters.FREE;
            x = new MPVariable[experts][ep];
            m = movable ? new MPVariable[experts][ep] : null;
            for (int e = 0; e < experts; e++) {
                int home = StaticLayout.home(e, ep, experts);
                Row atLeastOne = row("copy_" + e, 1, INF);
                Row oneMaster = movable ? row("master_" + e, 1, 1) : null;
                for (int g = 0; g < ep; g++) {
                    x[e][g] = solver.makeBoolVar("x_" + e + "_" + g);
                    atLeastOne.set(x[e][g], 1);
                    if (replicate && !movable && g == home) {
                        x[e][g].setLb(1);
                    }
                    if (movable) {
                        m[e][g] = solver.makeBoolVar("m_" + e + "_" + g);
                        oneMaster.set(m[e][g], 1);
                        row("masterHolds_" + e + "_" + g, -INF, 0).set(m[e][g], 1).set(x[e][g], -1);
                    }
                }
            }
            for (int g = 0; g < ep; g++) {
                Row slots = row("slots_" + g, -INF, p.slotsPerGpu());
                for (int e = 0; e < experts; e++) {
                    slots.set(x[e][g], 1);
                }
            }
            MPVariable t = solver.makeIntVar(0, INF, "t");
            routing(gt, t);
            if (replicate) {
                replicaTraffic(gt, shape);
            } else {
                fssdpTraffic(gt, shape);
            }
            Hardware hw = gt.hardware();
            CostModel cost = new CostModel(shape, p.mode(), p.replanInterval());
            double kappa = cost.computeSeconds(1, hw) * US;
            MPVariable a2a = solver.makeNumVar(0, INF, "a2a");
            MPVariable param = solver.makeNumVar(0, INF, "param");
            MPVariable computeOrParam = solver.makeNumVar(0, INF, "computeOrParam");
            solver.objective().setCoefficient(a2a, CostModel.ALL_TO_ALLS_PER_LAYER);
            solver.objective().setCoefficient(computeOrParam, 1);
            solver.objective().setMinimization();
            row("z_compute", -INF, 0).set(t, kappa).set(computeOrParam, -1);
            row("z_param", -INF, 0).set(param, 1).set(computeOrParam, -1);
            linkRows("a2a", tokenBytes, a2a, hw);
            linkRows("param", paramBytes, param, hw);
        }

        private Row row(String name, double lb, double ub) {
            return new Row(solver.makeConstraint(lb, ub, name));
        }

        /** A constraint whose coefficients are set in a chain. */
        private record Row(MPConstraint c) {
            Row set(MPVariable v, double coefficient) {
                c.setCoefficient(v, coefficient);
                return this;
            }
        }

        /** Flows: every source's count split over the expert's copies; the busiest GPU computes at most t. */
        private void routing(GroupTopology gt, MPVariable t) {
            int ep = p.ep();
            int experts = p.experts();
            double tb = p.shape().tokenBytes();
            Row[] load = new Row[ep];
            for (int g = 0; g < ep; g++) {
                load[g] = row("load_" + g, -INF, 0).set(t, -1);
            }
            for (int s = 0; s < ep; s++) {
                for (int e = 0; e < experts; e++) {
                    long c = p.count(s, e);
                    if (c == 0) {
                        continue;
                    }
                    Row all = row("route_" + s + "_" + e, c, c);
                    for (int g = 0; g < ep; g++) {
                        MPVariable y = solver.makeNumVar(0, INF, "y_" + s + "_" + e + "_" + g);
                        all.set(y, 1);
                        row("onCopy_" + s + "_" + e + "_" + g, -INF, 0).set(y, 1).set(x[e][g], -c);
                        load[g].set(y, 1);
                        int cls = gt.linkClass(s, g);
                        if (cls != 0) {
                            add(tokenBytes[s][SEND][cls], y, tb);
                            add(tokenBytes[g][RECV][cls], y, tb);
                        }
                    }
                }
            }
        }

        /** Replicate mode: refresh (master to copy) and gradient return of every copy off the master; migrations. */
        private void replicaTraffic(GroupTopology gt, MoeShape shape) {
            int ep = p.ep();
            int experts = p.experts();
            double w = shape.weightBytesPerExpert();
            double gb = shape.gradBytesPerExpert();
            double migration = (double) new CostModel(shape, p.mode(), p.replanInterval()).masterMigrationBytes()
                    / p.replanInterval();
            for (int e = 0; e < experts; e++) {
                int home = StaticLayout.home(e, ep, experts);
                for (int g = 0; g < ep; g++) {
                    if (m == null) {
                        if (g != home) {
                            refresh(gt, x[e][g], home, g, w, gb);
                        }
                        continue;
                    }
                    Row fed = row("fed_" + e + "_" + g, 0, INF).set(x[e][g], -1).set(m[e][g], 1);
                    for (int h = 0; h < ep; h++) {
                        if (h == g) {
                            continue;
                        }
                        MPVariable z = solver.makeNumVar(0, 1, "z_" + e + "_" + h + "_" + g);
                        fed.set(z, 1);
                        row("zMaster_" + e + "_" + h + "_" + g, -INF, 0).set(z, 1).set(m[e][h], -1);
                        refresh(gt, z, h, g, w, gb);
                    }
                    if (g != home) {
                        int cls = gt.linkClass(home, g);
                        add(paramBytes[home][SEND][cls], m[e][g], migration);
                        add(paramBytes[g][RECV][cls], m[e][g], migration);
                    }
                }
            }
        }

        private void refresh(GroupTopology gt, MPVariable v, int master, int copy, double w, double gb) {
            int cls = gt.linkClass(master, copy);
            add(paramBytes[master][SEND][cls], v, w);
            add(paramBytes[copy][RECV][cls], v, w);
            add(paramBytes[copy][SEND][cls], v, gb);
            add(paramBytes[master][RECV][cls], v, gb);
        }

        /** FSSDP: every copy gathers the other shards and reduce-scatters its gradient back. */
        private void fssdpTraffic(GroupTopology gt, MoeShape shape) {
            int ep = p.ep();
            double w = (double) shape.weightBytesPerExpert() / ep;
            double gb = (double) shape.gradBytesPerExpert() / ep;
            for (int e = 0; e < p.experts(); e++) {
                for (int g = 0; g < ep; g++) {
                    for (int o = 0; o < ep; o++) {
                        int cls = gt.linkClass(o, g);
                        if (cls == 0) {
                            continue;
                        }
                        add(paramBytes[o][SEND][cls], x[e][g], w);
                        add(paramBytes[g][RECV][cls], x[e][g], w);
                        add(paramBytes[g][SEND][cls], x[e][g], gb);
                        add(paramBytes[o][RECV][cls], x[e][g], gb);
                    }
                }
            }
        }

        /** bound >= bytes / rate for every GPU and direction: NVLink, NIC (network + cross-rack), cross-rack. */
        private void linkRows(String name, Map<MPVariable, Double>[][][] bytes, MPVariable bound, Hardware hw) {
            int nv = LinkClass.NVLINK.ordinal();
            int net = LinkClass.NETWORK.ordinal();
            int xr = LinkClass.CROSS_RACK.ordinal();
            for (int g = 0; g < p.ep(); g++) {
                for (int d = 0; d < 2; d++) {
                    Map<MPVariable, Double>[] b = bytes[g][d];
                    row(name + "_nv_" + g + "_" + d, bound, hw.bytesPerSecond(LinkClass.NVLINK), b[nv]);
                    row(name + "_nic_" + g + "_" + d, bound, hw.bytesPerSecond(LinkClass.NETWORK), b[net], b[xr]);
                    row(name + "_xr_" + g + "_" + d, bound, hw.bytesPerSecond(LinkClass.CROSS_RACK), b[xr]);
                }
            }
        }

        @SafeVarargs
        private void row(String name, MPVariable bound, double rate, Map<MPVariable, Double>... parts) {
            Map<MPVariable, Double> sum = new LinkedHashMap<>();
            for (Map<MPVariable, Double> part : parts) {
                part.forEach((v, c) -> add(sum, v, c));
            }
            if (sum.isEmpty()) {
                return;
            }
            Row ex = row(name, -INF, 0).set(bound, -1);
            sum.forEach((v, c) -> ex.set(v, c * US / rate));
        }

        private static void add(Map<MPVariable, Double> terms, MPVariable v, double c) {
            terms.merge(v, c, Double::sum);
        }

        /** A starting point for the search: copies and masters of {@code p}. */
        void hint(LayerPlacement start) {
            int ep = p.ep();
            int experts = p.experts();
            List<MPVariable> vars = new ArrayList<>();
            List<Double> values = new ArrayList<>();
            for (int e = 0; e < experts; e++) {
                for (int g = 0; g < ep; g++) {
                    vars.add(x[e][g]);
                    values.add(start.holds(g, e) ? 1.0 : 0.0);
                    if (m != null) {
                        vars.add(m[e][g]);
                        values.add(start.master(e) == g ? 1.0 : 0.0);
                    }
                }
            }
            solver.setHint(vars.toArray(new MPVariable[0]), values.stream().mapToDouble(Double::doubleValue).toArray());
        }

        /** The incumbent's placement (copies where x is 1) with its masters. */
        LayerPlacement placement() {
            int ep = p.ep();
            int experts = p.experts();
            int[][] lists = new int[ep][];
            for (int g = 0; g < ep; g++) {
                int n = 0;
                int[] l = new int[experts];
                for (int e = 0; e < experts; e++) {
                    if (x[e][g].solutionValue() > 0.5) {
                        l[n++] = e;
                    }
                }
                lists[g] = Arrays.copyOf(l, n);
            }
            LayerPlacement placement = LayerPlacement.of(experts, lists);
            if (m == null) {
                return placement;
            }
            int[] masters = new int[experts];
            for (int e = 0; e < experts; e++) {
                for (int g = 0; g < ep; g++) {
                    if (m[e][g].solutionValue() > 0.5) {
                        masters[e] = g;
                    }
                }
            }
            return placement.withMasters(masters);
        }
    }
}
