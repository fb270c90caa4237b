package dev.ballast.collectives;

/** Combines the ranks' encoded slices of one shard in ascending rank order: the determinism rule. */
final class Reduction {
    private Reduction() {
    }

    /** {@code byRank[0] op byRank[1] op ...}, left to right, in the slices' encoding. */
    static byte[] reduce(Dtype dtype, ReduceOp op, byte[][] byRank) {
        switch (dtype) {
            case FLOAT -> {
                float[] acc = Dtype.floats(byRank[0]);
                for (int r = 1; r < byRank.length; r++) op.apply(acc, Dtype.floats(byRank[r]));
                return Dtype.encode(acc);
            }
            case DOUBLE -> {
                double[] acc = Dtype.doubles(byRank[0]);
                for (int r = 1; r < byRank.length; r++) op.apply(acc, Dtype.doubles(byRank[r]));
                return Dtype.encode(acc);
            }
            case LONG -> {
                long[] acc = Dtype.longs(byRank[0]);
                for (int r = 1; r < byRank.length; r++) op.apply(acc, Dtype.longs(byRank[r]));
                return Dtype.encode(acc);
            }
            default -> throw new IllegalArgumentException("cannot reduce " + dtype);
        }
    }
}
