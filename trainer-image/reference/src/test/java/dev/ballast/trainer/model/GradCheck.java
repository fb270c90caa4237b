package dev.ballast.trainer.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.function.DoubleSupplier;

/**
 * Finite-difference checks of a float32 computation. The directional check perturbs a whole tensor along a random
 * +-1 direction v and compares (L(w + eps v) - L(w - eps v)) / 2 eps with sum(g * v); the element check does the same
 * for the elements with the largest gradients. Central differences in float32 with eps = 1e-2 and losses summed in
 * double keep rounding and truncation near 1e-4 relative, so the stated tolerance is 1e-2 relative.
 */
final class GradCheck {

    static final double TOLERANCE = 1e-2;

    private GradCheck() {
    }

    static void check(String what, float[] w, float[] analytic, DoubleSupplier loss, double eps, long seed) {
        Random random = new Random(seed);
        float[] v = new float[w.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = random.nextBoolean() ? 1f : -1f;
        }
        compare(what + " (direction)", w, analytic, v, loss, eps);
        for (int i : largest(analytic, 3)) {
            float[] e = new float[w.length];
            e[i] = 1f;
            compare(what + "[" + i + "]", w, analytic, e, loss, eps);
        }
    }

    private static void compare(String what, float[] w, float[] analytic, float[] v, DoubleSupplier loss, double eps) {
        float[] saved = w.clone();
        for (int i = 0; i < w.length; i++) {
            w[i] = (float) (saved[i] + eps * v[i]);
        }
        double plus = loss.getAsDouble();
        for (int i = 0; i < w.length; i++) {
            w[i] = (float) (saved[i] - eps * v[i]);
        }
        double minus = loss.getAsDouble();
        System.arraycopy(saved, 0, w, 0, w.length);
        double numeric = (plus - minus) / (2 * eps);
        double exact = 0;
        for (int i = 0; i < w.length; i++) {
            exact += (double) analytic[i] * v[i];
        }
        assertThat(Math.abs(exact)).as(what + ": the gradient is not trivially zero").isGreaterThan(1e-4);
        assertThat(Math.abs(numeric - exact)).as(what + ": numeric " + numeric + " vs analytic " + exact)
                .isLessThanOrEqualTo(TOLERANCE * Math.max(Math.abs(numeric), Math.abs(exact)));
    }

    private static int[] largest(float[] g, int count) {
        return java.util.stream.IntStream.range(0, g.length).boxed()
                .sorted((a, b) -> Float.compare(Math.abs(g[b]), Math.abs(g[a])))
                .limit(Math.min(count, g.length)).mapToInt(Integer::intValue).toArray();
    }

    /** sum(out * r) in double: a scalar loss over a layer's output whose gradient is r. */
    static double dot(float[] out, float[] r) {
        double s = 0;
        for (int i = 0; i < out.length; i++) {
            s += (double) out[i] * r[i];
        }
        return s;
    }

    static float[] gaussian(Random random, int n, double std) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) (random.nextGaussian() * std);
        }
        return x;
    }
}
