package dev.ballast.collectives;

import java.util.List;
import java.util.Random;

/** The collectives computed plainly in one process, in rank order, and the test inputs. */
final class Reference {
    private Reference() {
    }

    static float[] reduce(List<float[]> byRank, ReduceOp op) {
        float[] acc = byRank.get(0).clone();
        for (int r = 1; r < byRank.size(); r++) {
            float[] x = byRank.get(r);
            for (int i = 0; i < acc.length; i++) {
                acc[i] = switch (op) {
                    case SUM -> acc[i] + x[i];
                    case MIN -> Math.min(acc[i], x[i]);
                    case MAX -> Math.max(acc[i], x[i]);
                };
            }
        }
        return acc;
    }

    static double[] reduceDoubles(List<double[]> byRank, ReduceOp op) {
        double[] acc = byRank.get(0).clone();
        for (int r = 1; r < byRank.size(); r++) {
            double[] x = byRank.get(r);
            for (int i = 0; i < acc.length; i++) {
                acc[i] = switch (op) {
                    case SUM -> acc[i] + x[i];
                    case MIN -> Math.min(acc[i], x[i]);
                    case MAX -> Math.max(acc[i], x[i]);
                };
            }
        }
        return acc;
    }

    static long[] reduceLongs(List<long[]> byRank, ReduceOp op) {
        long[] acc = byRank.get(0).clone();
        for (int r = 1; r < byRank.size(); r++) {
            long[] x = byRank.get(r);
            for (int i = 0; i < acc.length; i++) {
                acc[i] = switch (op) {
                    case SUM -> acc[i] + x[i];
                    case MIN -> Math.min(acc[i], x[i]);
                    case MAX -> Math.max(acc[i], x[i]);
                };
            }
        }
        return acc;
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
