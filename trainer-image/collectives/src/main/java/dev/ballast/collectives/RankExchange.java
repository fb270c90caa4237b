package dev.ballast.collectives;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * What every collective of one rank shares: numbering its calls, one call at a time, sending each phase's messages
 * (through memory to ranks of this pod, through gRPC to others), collecting the messages it expects and checking that
 * their senders made the same call. After a failure the rank refuses further calls.
 */
final class RankExchange {
    final int rank;
    final int worldSize;
    /** Every rank but this one, ascending. */
    final int[] others;
    private final PeerTable table;
    private final int nodeRank;
    private final long generation;
    private final Mailbox mailbox;
    private final PeerLinks links;
    private final Duration timeout;
    private final AtomicBoolean busy = new AtomicBoolean();
    private long seq;
    private String broken;

    RankExchange(int rank, PeerTable table, int nodeRank, long generation, Mailbox mailbox, PeerLinks links,
        Duration timeout) {
        this.rank = rank;
        this.worldSize = table.worldSize();
        this.table = table;
        this.nodeRank = nodeRank;
        this.generation = generation;
        this.mailbox = mailbox;
        this.links = links;
        this.timeout = timeout;
        this.others = new int[worldSize - 1];
        for (int r = 0, i = 0; r < worldSize; r++) if (r != rank) others[i++] = r;
    }

    /** Runs one collective call as this rank's next call; any failure marks the rank broken. */
    <T> T call(Collective collective, Dtype dtype, ReduceOp op, long check, Function<Call, T> body) {
        if (!busy.compareAndSet(false, true)) {
            throw new IllegalStateException("rank " + rank + " is already in a collective on another thread; "
                + "each rank's collectives run on one thread");
        }
        Call call = new Call(seq, collective, dtype, op, check);
        try {
            if (broken != null) {
                throw new CollectiveException("rank " + rank + " cannot start " + call.describe()
                    + ": an earlier collective failed: " + broken);
            }
            seq++;
            return body.apply(call);
        } catch (RuntimeException e) {
            if (broken == null) broken = e.getMessage();
            throw e;
        } finally {
            busy.set(false);
        }
    }

    /**
     * Sends {@code toEach[r]} to rank r (where not null; never to this rank) and returns the payloads from the ranks
     * {@code from}, indexed by rank, once every one arrived and every send was taken.
     */
    byte[][] exchange(Call call, int phase, byte[][] toEach, int[] from) {
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
        byte[][] payloads = new byte[worldSize][];
        for (int i = 0; i < from.length; i++) {
            Envelope e = got[i];
            if (!call.matches(e)) {
                throw new CollectiveException("rank " + rank + " called " + call.describe() + " but rank " + e.src()
                    + " called " + Call.of(e).describe()
                    + ": every rank must call the same collectives in the same order");
            }
            payloads[from[i]] = e.payload();
        }
        awaitSends(sends, deadline, call);
        return payloads;
    }

    /** The same payload for every rank. */
    byte[][] toAll(byte[] payload) {
        byte[][] out = new byte[worldSize][];
        Arrays.fill(out, payload);
        return out;
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
}
