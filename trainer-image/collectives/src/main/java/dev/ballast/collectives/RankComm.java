package dev.ballast.collectives;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The collectives as one global rank calls them. Every rank of the world calls the same collectives in the same order
 * (each call has a sequence number; a rank whose call differs fails loudly), one thread per rank. Ranks of the same
 * pod exchange through memory, ranks of different pods through gRPC. Inputs are never modified; results are new
 * arrays. Any failure throws {@link CollectiveException} and leaves this rank unusable (docs/collectives.md).
 */
public final class RankComm {
    private final int rank;
    private final PeerTable table;
    private final int nodeRank;
    private final long generation;
    private final Mailbox mailbox;
    private final PeerLinks links;
    private final Duration timeout;
    private final int[] others;
    private final AtomicBoolean busy = new AtomicBoolean();
    private long seq;
    private String broken;

    RankComm(int rank, PeerTable table, int nodeRank, long generation, Mailbox mailbox, PeerLinks links,
        Duration timeout) {
        this.rank = rank;
        this.table = table;
        this.nodeRank = nodeRank;
        this.generation = generation;
        this.mailbox = mailbox;
        this.links = links;
        this.timeout = timeout;
        int world = table.worldSize();
        this.others = new int[world - 1];
        for (int r = 0, i = 0; r < world; r++) if (r != rank) others[i++] = r;
    }

    /** This rank's global rank. */
    public int rank() {
        return rank;
    }

    public int worldSize() {
        return table.worldSize();
    }

    /** Returns once every rank of the world called barrier. */
    public void barrier() {
        run(new Call(seq, Collective.BARRIER, Dtype.NONE, null, -1), call -> {
            exchange(call, 0, same(Methods.EMPTY), others);
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
        Call call = new Call(seq, Collective.REDUCE_SCATTER, Dtype.FLOAT, op, check);
        return run(call, c -> Dtype.floats(reduceShard(c, Dtype.encode(values), offsets)));
    }

    /** Rank {@code root}'s {@code values} on every rank; other ranks' {@code values} are ignored (may be null). */
    public float[] broadcast(float[] values, int root) {
        checkRank(root, "broadcast root");
        return run(new Call(seq, Collective.BROADCAST, Dtype.FLOAT, null, root), call -> {
            if (rank == root) {
                exchange(call, 0, same(Dtype.encode(values)), new int[0]);
                return values.clone();
            }
            return Dtype.floats(exchange(call, 0, new byte[worldSize()][], new int[] {root})[root]);
        });
    }

    /** Every rank's {@code values}, indexed by rank; sizes may differ between ranks. */
    public float[][] allGather(float[] values) {
        return run(new Call(seq, Collective.ALL_GATHER, Dtype.FLOAT, null, -1), call -> {
            byte[][] got = exchange(call, 0, same(Dtype.encode(values)), others);
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
        return run(new Call(seq, Collective.ALL_TO_ALL_V, Dtype.FLOAT, null, -1), call -> {
            byte[][] out = new byte[worldSize()][];
            for (int r : others) out[r] = Dtype.encode(nonNull(toEach[r], r));
            byte[][] got = exchange(call, 0, out, others);
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
        return run(new Call(seq, Collective.SPARSE_ALL_GATHER, Dtype.INT, null, -1), call -> {
            byte[][] requests = exchange(call, 0, same(Dtype.encode(wanted)), others);
            byte[][] answers = new byte[worldSize()][];
            for (int r : others) answers[r] = SparseChunks.encode(pick(owned, Dtype.ints(requests[r])));
            byte[][] got = exchange(call, 1, answers, others);
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

    // ---- the machinery every collective shares

    /** One collective call as every rank must make it: the parts that travel in each message's header. */
    private record Call(long seq, Collective collective, Dtype dtype, ReduceOp op, long check) {
        String describe() {
            return collective.method + " call #" + seq + " (" + (op == null ? "" : op + " of ") + dtype
                + (check >= 0 ? ", check " + check : "") + ")";
        }

        boolean matches(Envelope e) {
            return e.collective() == collective && e.dtype() == dtype && e.reduceOp() == op && e.check() == check;
        }
    }

    private interface Body<T> {
        T run(Call call);
    }

    private <T> T run(Call call, Body<T> body) {
        if (!busy.compareAndSet(false, true)) {
            throw new IllegalStateException("rank " + rank + " is already in a collective on another thread; "
                + "each rank's collectives run on one thread");
        }
        try {
            if (broken != null) {
                throw new CollectiveException("rank " + rank + " cannot start " + call.describe()
                    + ": an earlier collective failed: " + broken);
            }
            seq++;
            return body.run(call);
        } catch (RuntimeException e) {
            if (broken == null) broken = e.getMessage();
            throw e;
        } finally {
            busy.set(false);
        }
    }

    /** All-reduce as a reduce-scatter over even shards followed by an all-gather of the reduced shards. */
    private byte[] allReduce(Dtype dtype, byte[] mine, int count, ReduceOp op) {
        Call call = new Call(seq, Collective.ALL_REDUCE, dtype, op, count);
        return run(call, c -> {
            byte[] reduced = reduceShard(c, mine, Shards.even(count, worldSize()));
            byte[][] shards = exchange(c, 1, same(reduced), others);
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
        byte[][] slices = exchange(call, 0, out, others);
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

    /**
     * Sends {@code toEach[r]} (where not null, r not this rank) and returns the payloads from {@code from}, indexed by
     * rank, after checking that every sender made the same call.
     */
    private byte[][] exchange(Call call, int phase, byte[][] toEach, int[] from) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<CompletableFuture<Void>> sends = new ArrayList<>();
        for (int r : others) {
            if (toEach[r] == null) continue;
            Envelope e = new Envelope(generation, call.seq(), call.collective(), phase, call.dtype(), call.op(), rank,
                r, call.check(), toEach[r]);
            if (table.nodeOf(r) == nodeRank) mailbox.deliver(e);
            else sends.add(links.send(e));
        }
        Envelope[] got = mailbox.take(rank, from, call.seq(), phase, deadline, call.describe());
        byte[][] payloads = new byte[worldSize()][];
        for (int i = 0; i < from.length; i++) {
            Envelope e = got[i];
            if (!call.matches(e)) {
                Call theirs = new Call(e.seq(), e.collective(), e.dtype(), e.reduceOp(), e.check());
                throw new CollectiveException("rank " + rank + " called " + call.describe() + " but rank " + e.src()
                    + " called " + theirs.describe() + ": every rank must call the same collectives in the same order");
            }
            payloads[from[i]] = e.payload();
        }
        awaitSends(sends, deadline, call);
        return payloads;
    }

    private void awaitSends(List<CompletableFuture<Void>> sends, long deadline, Call call) {
        try {
            CompletableFuture.allOf(sends.toArray(new CompletableFuture[0]))
                .get(Math.max(deadline - System.nanoTime(), 0), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw new CollectiveException(call.describe() + " on rank " + rank + ": " + e.getCause().getMessage(),
                e.getCause());
        } catch (TimeoutException e) {
            throw new CollectiveException(call.describe() + " on rank " + rank + ": sending timed out after "
                + timeout.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CollectiveException(call.describe() + " on rank " + rank + " was interrupted", e);
        }
    }

    private byte[][] same(byte[] payload) {
        byte[][] out = new byte[worldSize()][];
        Arrays.fill(out, payload);
        return out;
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
