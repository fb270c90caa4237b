package dev.ballast.collectives;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The collectives as one global rank calls them. Every rank of the world calls the same collectives in the same order
 * (each call has a sequence number; a rank whose call differs fails loudly), one thread per rank. Ranks of the same
 * pod exchange through memory, ranks of different pods through gRPC. Inputs are never modified; results are new
 * arrays. Any failure throws {@link CollectiveException} and leaves this rank unusable (docs/collectives.md).
 */
public final class RankComm {
    private final RankExchange x;
    private final int rank;
    private final int[] others;

    RankComm(RankExchange exchange) {
        this.x = exchange;
        this.rank = exchange.rank;
        this.others = exchange.others;
    }

    /** This rank's global rank. */
    public int rank() {
        return rank;
    }

    public int worldSize() {
        return x.worldSize;
    }

    /** Returns once every rank of the world called barrier. */
    public void barrier() {
        x.call(Collective.BARRIER, Dtype.NONE, null, -1, call -> {
            x.exchange(call, 0, x.toAll(Methods.EMPTY), others);
            return null;
        });
    }

    /** Element-wise {@code op} over every rank's {@code values}; every rank gets the same bits (rank order). */
    public float[] allReduce(float[] values, ReduceOp op) {
        return Dtype.floats(allReduce(Dtype.FLOAT, Dtype.encode(values), values.length, op));
    }

    public double[] allReduce(double[] values, ReduceOp op) {
        return Dtype.doubles(allReduce(Dtype.DOUBLE, Dtype.encode(values), values.length, op));
    }

    public long[] allReduce(long[] values, ReduceOp op) {
        return Dtype.longs(allReduce(Dtype.LONG, Dtype.encode(values), values.length, op));
    }

    /**
     * Reduces every rank's {@code values} element-wise and gives rank r the shard [sum(shardSizes[0..r)),
     * + shardSizes[r]). Every rank passes the same shard sizes, which sum to values.length.
     */
    public float[] reduceScatter(float[] values, int[] shardSizes, ReduceOp op) {
        if (shardSizes.length != worldSize()) {
            throw new IllegalArgumentException("reduceScatter got " + shardSizes.length + " shard sizes for a world of "
                + worldSize() + " ranks");
        }
        int[] offsets = Shards.of(shardSizes);
        if (offsets[shardSizes.length] != values.length) {
            throw new IllegalArgumentException("reduceScatter shard sizes sum to " + offsets[shardSizes.length]
                + " but rank " + rank + " passed " + values.length + " values");
        }
        long check = 31L * Arrays.hashCode(shardSizes) + values.length;
        return x.call(Collective.REDUCE_SCATTER, Dtype.FLOAT, op, check,
            call -> Dtype.floats(reduceShard(call, Dtype.encode(values), offsets)));
    }

    /** Rank {@code root}'s {@code values} on every rank; other ranks' {@code values} are ignored (may be null). */
    public float[] broadcast(float[] values, int root) {
        checkRank(root, "broadcast root");
        return x.call(Collective.BROADCAST, Dtype.FLOAT, null, root, call -> {
            if (rank == root) {
                x.exchange(call, 0, x.toAll(Dtype.encode(values)), new int[0]);
                return values.clone();
            }
            return Dtype.floats(x.exchange(call, 0, new byte[worldSize()][], new int[] {root})[root]);
        });
    }

    /** Every rank's {@code values}, indexed by rank; sizes may differ between ranks. */
    public float[][] allGather(float[] values) {
        return x.call(Collective.ALL_GATHER, Dtype.FLOAT, null, -1, call -> {
            byte[][] got = x.exchange(call, 0, x.toAll(Dtype.encode(values)), others);
            float[][] out = new float[worldSize()][];
            for (int r : others) out[r] = Dtype.floats(got[r]);
            out[rank] = values.clone();
            return out;
        });
    }

    /**
     * Sends {@code toEach[r]} to rank r (empty arrays allowed; {@code toEach[rank()]} stays here) and returns what
     * every rank sent to this one, indexed by sender. Token dispatch and combine.
     */
    public float[][] allToAllV(float[][] toEach) {
        if (toEach.length != worldSize()) {
            throw new IllegalArgumentException("allToAllV got " + toEach.length + " arrays for a world of "
                + worldSize() + " ranks");
        }
        return x.call(Collective.ALL_TO_ALL_V, Dtype.FLOAT, null, -1, call -> {
            byte[][] out = new byte[worldSize()][];
            for (int r : others) out[r] = Dtype.encode(nonNull(toEach[r], r));
            byte[][] got = x.exchange(call, 0, out, others);
            float[][] in = new float[worldSize()][];
            for (int r : others) in[r] = Dtype.floats(got[r]);
            in[rank] = nonNull(toEach[rank], rank).clone();
            return in;
        });
    }

    /**
     * Fetches the chunks this rank {@code wants} from whichever ranks own them: each rank passes the chunks it owns
     * (by id) and the ids it wants; the result holds exactly the wanted chunks, by id. A wanted id that no rank or
     * two ranks own fails on the ranks that want it. FSSDP's gather of the experts a plan materializes.
     */
    public Map<Integer, float[]> sparseAllGather(Map<Integer, float[]> owned, int[] wants) {
        int[] wanted = new TreeSet<>(boxed(wants)).stream().mapToInt(Integer::intValue).toArray();
        return x.call(Collective.SPARSE_ALL_GATHER, Dtype.INT, null, -1, call -> {
            byte[][] requests = x.exchange(call, 0, x.toAll(Dtype.encode(wanted)), others);
            byte[][] answers = new byte[worldSize()][];
            for (int r : others) answers[r] = SparseChunks.encode(pick(owned, Dtype.ints(requests[r])));
            byte[][] got = x.exchange(call, 1, answers, others);
            got[rank] = SparseChunks.encode(pick(owned, wanted));
            Map<Integer, float[]> result = new TreeMap<>();
            Map<Integer, Integer> owner = new TreeMap<>();
            for (int r = 0; r < worldSize(); r++) {
                for (Map.Entry<Integer, float[]> c : SparseChunks.decode(got[r]).entrySet()) {
                    Integer before = owner.put(c.getKey(), r);
                    if (before != null) {
                        throw new CollectiveException(call.describe() + " on rank " + rank + ": chunk " + c.getKey()
                            + " is owned by both rank " + before + " and rank " + r);
                    }
                    result.put(c.getKey(), c.getValue());
                }
            }
            List<Integer> missing = new ArrayList<>();
            for (int id : wanted) if (!result.containsKey(id)) missing.add(id);
            if (!missing.isEmpty()) {
                throw new CollectiveException(call.describe() + " on rank " + rank + ": no rank owns chunks " + missing);
            }
            return result;
        });
    }

    /** All-reduce as a reduce-scatter over even shards followed by an all-gather of the reduced shards. */
    private byte[] allReduce(Dtype dtype, byte[] mine, int count, ReduceOp op) {
        return x.call(Collective.ALL_REDUCE, dtype, op, count, call -> {
            byte[] reduced = reduceShard(call, mine, Shards.even(count, worldSize()));
            byte[][] shards = x.exchange(call, 1, x.toAll(reduced), others);
            shards[rank] = reduced;
            int size = 0;
            for (byte[] s : shards) size += s.length;
            byte[] out = new byte[size];
            int at = 0;
            for (byte[] s : shards) {
                System.arraycopy(s, 0, out, at, s.length);
                at += s.length;
            }
            return out;
        });
    }

    /** Phase 0 of all-reduce and reduce-scatter: rank r receives everyone's shard r and reduces it in rank order. */
    private byte[] reduceShard(Call call, byte[] mine, int[] offsets) {
        int size = call.dtype().bytes;
        byte[][] out = new byte[worldSize()][];
        for (int r : others) out[r] = Arrays.copyOfRange(mine, offsets[r] * size, offsets[r + 1] * size);
        byte[][] slices = x.exchange(call, 0, out, others);
        slices[rank] = Arrays.copyOfRange(mine, offsets[rank] * size, offsets[rank + 1] * size);
        int expected = (offsets[rank + 1] - offsets[rank]) * size;
        for (int r : others) {
            if (slices[r].length != expected) {
                throw new CollectiveException(call.describe() + " on rank " + rank + ": rank " + r + " sent "
                    + slices[r].length / size + " elements for this rank's shard of " + expected / size);
            }
        }
        return Reduction.reduce(call.dtype(), call.op(), slices);
    }

    private static Map<Integer, float[]> pick(Map<Integer, float[]> owned, int[] ids) {
        Map<Integer, float[]> picked = new TreeMap<>();
        for (int id : ids) {
            float[] c = owned.get(id);
            if (c != null) picked.put(id, c);
        }
        return picked;
    }

    private static List<Integer> boxed(int[] ids) {
        List<Integer> out = new ArrayList<>(ids.length);
        for (int id : ids) out.add(id);
        return out;
    }

    private float[] nonNull(float[] values, int to) {
        if (values == null) {
            throw new IllegalArgumentException("allToAllV on rank " + rank + ": the array for rank " + to
                + " is null; pass an empty array to send nothing");
        }
        return values;
    }

    private void checkRank(int r, String what) {
        if (r < 0 || r >= worldSize()) {
            throw new IllegalArgumentException(what + " " + r + " is outside the world of " + worldSize() + " ranks");
        }
    }
}
