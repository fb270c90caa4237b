package dev.ballast.tools.exact;

import com.google.ortools.Loader;
import com.google.ortools.linearsolver.MPConstraint;
import com.google.ortools.linearsolver.MPSolver;
import com.google.ortools.linearsolver.MPVariable;
import dev.ballast.planner.route.BoundedSimplex;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;

/** The planner's dense simplex against GLOP on random programs whose origin is feasible. */
class BoundedSimplexTest {
    @Test
    void findsGlopsOptimumOnRandomBoundedPrograms() {
        Loader.loadNativeLibraries();
        SplittableRandom rnd = new SplittableRandom(3);
        for (int round = 0; round < 300; round++) {
            int m = 1 + rnd.nextInt(12);
            int n = 1 + rnd.nextInt(20);
            double[] a = new double[m * n];
            double[] b = new double[m];
            double[] c = new double[n];
            double[] upper = new double[n];
            for (int i = 0; i < m; i++) {
                b[i] = rnd.nextInt(4) == 0 ? 0 : rnd.nextDouble() * 10;
                for (int j = 0; j < n; j++) {
                    a[i * n + j] = rnd.nextInt(3) == 0 ? 0 : Math.round((rnd.nextDouble() * 4 - 1) * 4) / 4.0;
                }
            }
            for (int j = 0; j < n; j++) {
                c[j] = Math.round((rnd.nextDouble() * 4 - 1) * 4) / 4.0;
                upper[j] = 1 + rnd.nextInt(5);
            }
            double glop = glop(a, b, c, upper);
            BoundedSimplex.Solution s = BoundedSimplex.maximise(a, b, c, upper);
            assertThat(s.objective()).as("round " + round).isCloseTo(glop, offset(1e-7 * (1 + Math.abs(glop))));
            for (int i = 0; i < m; i++) {
                double lhs = 0;
                for (int j = 0; j < n; j++) {
                    lhs += a[i * n + j] * s.x()[j];
                }
                assertThat(lhs).as("round " + round + ", row " + i).isLessThanOrEqualTo(b[i] + 1e-7);
            }
            for (int j = 0; j < n; j++) {
                assertThat(s.x()[j]).isBetween(-1e-9, upper[j] + 1e-9);
            }
        }
    }

    static double glop(double[] a, double[] b, double[] c, double[] upper) {
        int m = b.length;
        int n = c.length;
        MPSolver solver = MPSolver.createSolver("GLOP");
        try {
            MPVariable[] x = new MPVariable[n];
            for (int j = 0; j < n; j++) {
                x[j] = solver.makeNumVar(0, upper[j], "x" + j);
                solver.objective().setCoefficient(x[j], c[j]);
            }
            for (int i = 0; i < m; i++) {
                MPConstraint row = solver.makeConstraint(Double.NEGATIVE_INFINITY, b[i], "r" + i);
                for (int j = 0; j < n; j++) {
                    row.setCoefficient(x[j], a[i * n + j]);
                }
            }
            solver.objective().setMaximization();
            assertThat(solver.solve()).isEqualTo(MPSolver.ResultStatus.OPTIMAL);
            return solver.objective().value();
        } finally {
            solver.delete();
        }
    }
}
