package dev.ballast.collectives;

import java.util.List;
import java.util.Random;

/** The collectives computed plainly in one process, in rank order, and the test inputs. */
final class Reference {
    private Reference() {
    }

    static float[] reduce(List<float[]> byRank, ReduceOp op) {
        float[] acc = byRank.get(0).clone();
        for (float[] x : byRank.subList(1, byRank.size())) {
            // float op float, computed exactly in double and rounded once: the same bits as in float arithmetic
            for (int i = 0; i < acc.length; i++) acc[i] = (float) combine(op, acc[i], x[i]);
        }
        return acc;
    }

    static double[] reduceDoubles(List<double[]> byRank, ReduceOp op) {
        double[] acc = byRank.get(0).clone();
        for (double[] x : byRank.subList(1, byRank.size())) {
            for (int i = 0; i < acc.length; i++) acc[i] = combine(op, acc[i], x[i]);
        }
        return acc;
    }

    static long[] reduceLongs(List<long[]> byRank, ReduceOp op) {
        long[] acc = byRank.get(0).clone();
        for (long[] x : byRank.subList(1, byRank.size())) {
            for (int i = 0; i < acc.length; i++) {
                acc[i] = op == ReduceOp.SUM ? acc[i] + x[i] : op == ReduceOp.MIN ? Math.min(acc[i], x[i])
                    : Math.max(acc[i], x[i]);
            }
        }
        return acc;
    }

    private static double combine(ReduceOp op, double a, double b) {
        return switch (op) {
            case SUM -> a + b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
        };
    }

    /**
     * Rank {@code rank}'s input of {@code n} floats: magnitudes from 1e-3 to 1e7 and both signs, so that a sum in
     * another order gives other bits.
     */
    static float[] floats(long seed, int rank, int n) {
        Random random = new Random(seed * 1_000_003L + rank);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) ((random.nextBoolean() ? 1 : -1) * Math.pow(10, random.nextInt(11) - 3)
                * random.nextDouble());
        }
        return x;
    }

    static double[] doubles(long seed, int rank, int n) {
        Random random = new Random(seed * 7_919L + rank);
        double[] x = new double[n];
        for (int i = 0; i < n; i++) x[i] = (random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(20) - 5);
        return x;
    }

    static long[] longs(long seed, int rank, int n) {
        Random random = new Random(seed * 31L + rank);
        long[] x = new long[n];
        for (int i = 0; i < n; i++) x[i] = random.nextLong() >> 8;
        return x;
    }
}
