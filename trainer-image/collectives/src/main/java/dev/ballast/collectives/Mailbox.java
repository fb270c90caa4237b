package dev.ballast.collectives;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Where messages for this pod's ranks wait until their rank takes them, keyed by (destination, source, call,
 * phase): arrival order never matters. A lost source fails the slots still waiting for it, now and later, so a rank
 * blocked on a dead pod wakes with an error instead of hanging.
 */
final class Mailbox {
    private record Key(int dst, int src, long seq, int phase) {
    }

    private final Map<Key, CompletableFuture<Envelope>> slots = new ConcurrentHashMap<>();
    private final Map<Integer, String> lost = new ConcurrentHashMap<>();

    void deliver(Envelope e) {
        Key key = new Key(e.dst(), e.src(), e.seq(), e.phase());
        if (!slot(key).complete(e)) {
            throw new CollectiveException("rank " + e.dst() + " got a second message from rank " + e.src()
                + " for call #" + e.seq() + " phase " + e.phase() + " (" + e.collective().method
                + "): the ranks' call sequences disagree");
        }
    }

    /**
     * The messages from {@code sources} to {@code dst} for call {@code seq}, in the order of {@code sources}; waits
     * until {@code deadlineNanos} (System.nanoTime). On timeout, names every source still missing.
     */
    Envelope[] take(int dst, int[] sources, long seq, int phase, long deadlineNanos, String call) {
        Envelope[] got = new Envelope[sources.length];
        List<CompletableFuture<Envelope>> futures = new ArrayList<>(sources.length);
        for (int src : sources) futures.add(watched(new Key(dst, src, seq, phase)));
        try {
            for (int i = 0; i < sources.length; i++) {
                long left = deadlineNanos - System.nanoTime();
                got[i] = futures.get(i).get(Math.max(left, 0), TimeUnit.NANOSECONDS);
            }
        } catch (TimeoutException e) {
            List<Integer> missing = new ArrayList<>();
            for (int i = 0; i < sources.length; i++) if (!futures.get(i).isDone()) missing.add(sources[i]);
            throw new CollectiveException(call + " on rank " + dst + " timed out: no message from ranks " + missing);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            throw new CollectiveException(call + " on rank " + dst + " failed: " + cause.getMessage(), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CollectiveException(call + " on rank " + dst + " was interrupted", e);
        } finally {
            for (int src : sources) slots.remove(new Key(dst, src, seq, phase));
        }
        return got;
    }

    /** Every message from {@code ranks} fails with {@code reason} unless it already arrived. */
    void markLost(int[] ranks, String reason) {
        for (int r : ranks) lost.putIfAbsent(r, reason);
        for (Map.Entry<Key, CompletableFuture<Envelope>> e : slots.entrySet()) {
            String why = lost.get(e.getKey().src());
            if (why != null) e.getValue().completeExceptionally(new CollectiveException(why));
        }
    }

    private CompletableFuture<Envelope> watched(Key key) {
        CompletableFuture<Envelope> f = slot(key);
        String reason = lost.get(key.src());
        if (reason != null) f.completeExceptionally(new CollectiveException(reason)); // no-op if it already arrived
        return f;
    }

    private CompletableFuture<Envelope> slot(Key key) {
        return slots.computeIfAbsent(key, k -> new CompletableFuture<>());
    }
}
