package dev.ballast.planner.route;

import dev.ballast.planner.cost.CostModel;
import dev.ballast.planner.model.GroupTopology;
import dev.ballast.planner.model.Hardware;
import dev.ballast.planner.model.LayerPlacement;
import dev.ballast.planner.model.LinkClass;
import dev.ballast.planner.model.Mode;
import dev.ballast.planner.model.MoeShape;

import java.util.Arrays;
import java.util.function.ToDoubleFunction;

/**
 * The best routing of one layer of one EP group for a fixed placement (replicate mode, masters where the placement
 * says): how to split each source's tokens over the expert's copies so that the cost model's steady-state layer time
 * is least. The model is that of docs/cost-model.md, "Exact optimum on small instances", with the copies fixed:
 * <pre>
 * minimise 4 A + Z,  Z >= kappa t,  Z >= P,  t >= tokens GPU g computes,  A >= bytes / rate per GPU, direction and link
 * </pre>
 * with {@code P} the placement's parameter traffic (a constant here) and continuous token flows. It is solved by
 * {@link BoundedSimplex} after a change of variables that makes the origin feasible: every (source, expert) starts on
 * its nearest copy, the variables are the tokens moved from it to the other copies, and {@code t = t0 - u},
 * {@code A = A0 - v}, {@code Z = Z0 - w} with {@code t0, A0, Z0} upper bounds on any routing's values.
 */
public final class RoutingLp {
    /**
     * The routing found: the layer time in seconds and the tokens each source sends to each copy
     * ({@code tokens[source * totalCopies + copyIndex]}, copy indices as {@link LayerPlacement#copyIndex}).
     */
    public record Routed(double seconds, double[] tokens) {
    }

    private static final double US = 1e6;
    private static final int SEND = 0;
    private static final int RECV = 1;
    /** Link terms timed apart: NVLink, the NIC (network and cross-rack bytes), cross-rack. */
    private static final int TERMS = 3;

    private RoutingLp() {
    }

    /**
     * A placement's layer time under its best routing of {@code counts}: what a placement search scores candidates by
     * (one {@link #solve} each).
     */
    public static ToDoubleFunction<LayerPlacement> scorer(GroupTopology gt, CostModel cost, long[] counts) {
        return p -> solve(gt, cost, p, counts).seconds();
    }

    /** The best continuous routing of {@code counts} ([source][expert], row-major) over {@code p}. */
    public static Routed solve(GroupTopology gt, CostModel cost, LayerPlacement p, long[] counts) {
        if (cost.mode() != Mode.REPLICATE) {
            throw new IllegalArgumentException("routing LP: replicate mode only (fssdp copies have no master)");
        }
        MoeShape shape = cost.shape();
        int ep = gt.ep();
        int experts = p.experts();
        Hardware hw = gt.hardware();
        double tb = shape.tokenBytes();
        double[] usPerByte = {US / hw.bytesPerSecond(LinkClass.NVLINK), US / hw.bytesPerSecond(LinkClass.NETWORK),
                US / hw.bytesPerSecond(LinkClass.CROSS_RACK)};
        int copies = p.totalCopies();

        // The starting routing: every (source, expert) on its nearest copy (lowest link class, then lowest GPU).
        int[] start = new int[ep * experts];
        double[] load = new double[ep];
        double[] linkUs = new double[ep * 2 * TERMS];
        int vars = 0;
        int multi = 0;
        for (int s = 0; s < ep; s++) {
            for (int e = 0; e < experts; e++) {
                long c = counts[s * experts + e];
                int k = p.copies(e);
                int first = p.copyStart(e);
                int near = first;
                for (int j = first + 1; j < first + k; j++) {
                    if (gt.linkClass(s, p.copyGpu(j)) < gt.linkClass(s, p.copyGpu(near))) {
                        near = j;
                    }
                }
                start[s * experts + e] = near;
                if (c == 0) {
                    continue;
                }
                load[p.copyGpu(near)] += c;
                addFlow(linkUs, gt, usPerByte, s, p.copyGpu(near), c * tb);
                vars += k - 1;
                if (k > 2) {
                    multi++;
                }
            }
        }
        // t0 and A0 must bound the optimum's t and A from above (the origin u = v = 0 is a corner of the program, not
        // a guess at the answer): no GPU computes more than every token, and no link term carries a token twice.
        double all = 0;
        for (long c : counts) {
            all += c;
        }
        double t0 = Math.max(max(load), all);
        double a0 = Math.max(max(linkUs), all * tb * Math.max(usPerByte[0], Math.max(usPerByte[1], usPerByte[2])));
        double kappa = cost.computeSeconds(1, hw) * US;
        double param = paramUs(gt, shape, p, usPerByte);
        double z0 = Math.max(kappa * t0, param);

        // Columns: the moved tokens, then u, v, w. Rows: compute per GPU, link terms per GPU and direction, the
        // multi-copy sums, then Z >= kappa t.
        int n = vars + 3;
        int u = vars;
        int v = vars + 1;
        int w = vars + 2;
        int linkRows = ep * 2 * TERMS;
        int m = ep + linkRows + multi + 1;
        double[] a = new double[m * n];
        double[] b = new double[m];
        double[] upper = new double[n];
        int[] varSource = new int[vars];
        int[] varCopy = new int[vars];
        int[] varFrom = new int[vars];
        int col = 0;
        int multiRow = ep + linkRows;
        double[] delta = new double[linkRows];
        for (int s = 0; s < ep; s++) {
            for (int e = 0; e < experts; e++) {
                long c = counts[s * experts + e];
                int k = p.copies(e);
                if (c == 0 || k < 2) {
                    continue;
                }
                int from = start[s * experts + e];
                int fromGpu = p.copyGpu(from);
                int first = p.copyStart(e);
                for (int j = first; j < first + k; j++) {
                    if (j == from) {
                        continue;
                    }
                    int g = p.copyGpu(j);
                    varSource[col] = s;
                    varCopy[col] = j;
                    varFrom[col] = from;
                    upper[col] = c;
                    a[g * n + col] += 1;
                    a[fromGpu * n + col] -= 1;
                    Arrays.fill(delta, 0);
                    addFlow(delta, gt, usPerByte, s, g, tb);
                    addFlow(delta, gt, usPerByte, s, fromGpu, -tb);
                    for (int r = 0; r < linkRows; r++) {
                        a[(ep + r) * n + col] = delta[r];
                    }
                    if (k > 2) {
                        a[multiRow * n + col] = 1;
                    }
                    col++;
                }
                if (k > 2) {
                    b[multiRow++] = c;
                }
            }
        }
        for (int g = 0; g < ep; g++) {
            a[g * n + u] = 1;
            b[g] = t0 - load[g];
        }
        for (int r = 0; r < linkRows; r++) {
            a[(ep + r) * n + v] = 1;
            b[ep + r] = a0 - linkUs[r];
        }
        int zRow = m - 1;
        a[zRow * n + w] = 1;
        a[zRow * n + u] = -kappa;
        b[zRow] = z0 - kappa * t0;
        upper[u] = t0;
        upper[v] = a0;
        upper[w] = z0 - param;
        double[] objective = new double[n];
        objective[v] = CostModel.ALL_TO_ALLS_PER_LAYER;
        objective[w] = 1;
        BoundedSimplex.Solution sol = BoundedSimplex.maximise(a, b, objective, upper);

        double[] tokens = new double[ep * copies];
        for (int s = 0; s < ep; s++) {
            for (int e = 0; e < experts; e++) {
                tokens[s * copies + start[s * experts + e]] += counts[s * experts + e];
            }
        }
        for (int j = 0; j < vars; j++) {
            double y = sol.x()[j];
            tokens[varSource[j] * copies + varCopy[j]] += y;
            tokens[varSource[j] * copies + varFrom[j]] -= y;
        }
        double us = CostModel.ALL_TO_ALLS_PER_LAYER * (a0 - sol.x()[v]) + z0 - sol.x()[w];
        return new Routed(us / US, tokens);
    }

    /** Adds {@code bytes} sent from {@code s} to {@code g} to the link terms' microseconds. */
    private static void addFlow(double[] linkUs, GroupTopology gt, double[] usPerByte, int s, int g, double bytes) {
        int cls = gt.linkClass(s, g);
        if (cls == LinkClass.SAME_GPU.ordinal()) {
            return;
        }
        addLink(linkUs, s, SEND, cls, bytes, usPerByte);
        addLink(linkUs, g, RECV, cls, bytes, usPerByte);
    }

    /** One GPU and direction: NVLink bytes on the NVLink term, network and cross-rack on the NIC, cross-rack apart. */
    private static void addLink(double[] linkUs, int g, int dir, int cls, double bytes, double[] usPerByte) {
        int base = (g * 2 + dir) * TERMS;
        if (cls == LinkClass.NVLINK.ordinal()) {
            linkUs[base] += bytes * usPerByte[0];
            return;
        }
        linkUs[base + 1] += bytes * usPerByte[1];
        if (cls == LinkClass.CROSS_RACK.ordinal()) {
            linkUs[base + 2] += bytes * usPerByte[2];
        }
    }

    /** The busiest link term's parameter time: every copy off its master refreshed from it, its gradient returned. */
    private static double paramUs(GroupTopology gt, MoeShape shape, LayerPlacement p, double[] usPerByte) {
        double[] us = new double[gt.ep() * 2 * TERMS];
        double w = shape.weightBytesPerExpert();
        double gb = shape.gradBytesPerExpert();
        for (int e = 0; e < p.experts(); e++) {
            int master = p.master(e);
            for (int j = p.copyStart(e); j < p.copyStart(e) + p.copies(e); j++) {
                int g = p.copyGpu(j);
                addFlow(us, gt, usPerByte, master, g, w);
                addFlow(us, gt, usPerByte, g, master, gb);
            }
        }
        return max(us);
    }

    private static double max(double[] values) {
        double m = 0;
        for (double x : values) {
            m = Math.max(m, x);
        }
        return m;
    }
}
