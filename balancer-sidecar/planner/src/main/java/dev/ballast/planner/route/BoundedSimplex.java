package dev.ballast.planner.route;

import java.util.Arrays;

/**
 * A dense primal simplex for small linear programs whose origin is feasible:
 * <pre>
 * maximise c·x  subject to  A x <= b (b >= 0),  0 <= x <= upper  (upper may be +infinity)
 * </pre>
 * Upper bounds are kept as bounds, not rows (a nonbasic variable sits at either bound), so the tableau has one row per
 * constraint. Entering variable by the largest reduced cost; after a run of degenerate pivots, by the lowest index
 * (Bland's rule, which cannot cycle) until the objective moves again. Deterministic: the same input gives the same
 * pivots and the same solution, bit for bit. Meant for the routing LPs of one layer (tens of rows, hundreds of
 * columns); nothing here is sparse.
 */
public final class BoundedSimplex {
    /** The optimum: its objective value and the structural variables' values. */
    public record Solution(double objective, double[] x) {
    }

    private static final double PIVOT_EPS = 1e-9;
    private static final double COST_EPS = 1e-9;
    private static final int DEGENERATE_RUN = 32;

    private BoundedSimplex() {
    }

    /**
     * Solves the program; {@code a} is row-major {@code m × n}. Throws if {@code b} has a negative entry, if the
     * program is unbounded, or if it has not converged in {@code 50 (m + n)} pivots (a numerical fault).
     */
    public static Solution maximise(double[] a, double[] b, double[] c, double[] upper) {
        int m = b.length;
        int n = c.length;
        if (a.length != m * n || upper.length != n) {
            throw new IllegalArgumentException("A is " + a.length + " entries for " + m + " rows x " + n
                    + " columns; " + upper.length + " upper bounds");
        }
        int cols = n + m;
        double[] t = new double[m * cols];
        double[] beta = b.clone();
        for (int i = 0; i < m; i++) {
            if (!(b[i] >= 0)) {
                throw new IllegalArgumentException("row " + i + ": the origin must be feasible, b = " + b[i]);
            }
            System.arraycopy(a, i * n, t, i * cols, n);
            t[i * cols + n + i] = 1;
        }
        double[] d = new double[cols];
        System.arraycopy(c, 0, d, 0, n);
        double[] ub = new double[cols];
        System.arraycopy(upper, 0, ub, 0, n);
        Arrays.fill(ub, n, cols, Double.POSITIVE_INFINITY);
        int[] basis = new int[m];
        int[] rowOf = new int[cols];
        Arrays.fill(rowOf, -1);
        for (int i = 0; i < m; i++) {
            basis[i] = n + i;
            rowOf[n + i] = i;
        }
        boolean[] atUpper = new boolean[cols];
        double objective = 0;
        int degenerate = 0;
        int limit = 50 * (m + n);
        for (int iter = 0; ; iter++) {
            if (iter > limit) {
                throw new IllegalStateException("simplex: no optimum after " + limit + " pivots (" + m + " rows, "
                        + n + " columns)");
            }
            boolean bland = degenerate >= DEGENERATE_RUN;
            int q = -1;
            double best = COST_EPS;
            for (int j = 0; j < cols; j++) {
                if (rowOf[j] >= 0) {
                    continue;
                }
                double gain = atUpper[j] ? -d[j] : d[j];
                if (gain > best) {
                    q = j;
                    if (bland) {
                        break;
                    }
                    best = gain;
                }
            }
            if (q < 0) {
                break;
            }
            double sign = atUpper[q] ? -1 : 1;
            double theta = ub[q];
            int r = -1;
            for (int i = 0; i < m; i++) {
                double alpha = sign * t[i * cols + q];
                double limitI;
                if (alpha > PIVOT_EPS) {
                    limitI = Math.max(0, beta[i]) / alpha;
                } else if (alpha < -PIVOT_EPS && ub[basis[i]] < Double.POSITIVE_INFINITY) {
                    limitI = Math.max(0, ub[basis[i]] - beta[i]) / -alpha;
                } else {
                    continue;
                }
                if (limitI < theta || limitI == theta && r >= 0 && bland && basis[i] < basis[r]) {
                    theta = limitI;
                    r = i;
                }
            }
            if (theta == Double.POSITIVE_INFINITY) {
                throw new IllegalStateException("simplex: unbounded in column " + q);
            }
            double gain = (atUpper[q] ? -d[q] : d[q]) * theta;
            objective += gain;
            degenerate = gain > COST_EPS * Math.max(1, Math.abs(objective)) ? 0 : degenerate + 1;
            for (int i = 0; i < m; i++) {
                beta[i] -= sign * theta * t[i * cols + q];
            }
            if (r < 0) {
                atUpper[q] = !atUpper[q];
                continue;
            }
            int leaving = basis[r];
            atUpper[leaving] = sign * t[r * cols + q] < 0;
            double entering = (atUpper[q] ? ub[q] : 0) + sign * theta;
            atUpper[q] = false;
            pivot(t, d, m, cols, r, q);
            beta[r] = entering;
            rowOf[leaving] = -1;
            rowOf[q] = r;
            basis[r] = q;
        }
        double[] x = new double[n];
        for (int j = 0; j < n; j++) {
            x[j] = rowOf[j] >= 0 ? beta[rowOf[j]] : atUpper[j] ? ub[j] : 0;
        }
        double value = 0;
        for (int j = 0; j < n; j++) {
            value += c[j] * x[j];
        }
        return new Solution(value, x);
    }

    /** Gauss-Jordan step on row {@code r}, column {@code q}, the reduced costs included. */
    private static void pivot(double[] t, double[] d, int m, int cols, int r, int q) {
        int base = r * cols;
        double inv = 1 / t[base + q];
        for (int j = 0; j < cols; j++) {
            t[base + j] *= inv;
        }
        t[base + q] = 1;
        for (int i = 0; i < m; i++) {
            if (i == r) {
                continue;
            }
            int row = i * cols;
            double f = t[row + q];
            if (f == 0) {
                continue;
            }
            for (int j = 0; j < cols; j++) {
                t[row + j] -= f * t[base + j];
            }
            t[row + q] = 0;
        }
        double f = d[q];
        if (f != 0) {
            for (int j = 0; j < cols; j++) {
                d[j] -= f * t[base + j];
            }
            d[q] = 0;
        }
    }
}
