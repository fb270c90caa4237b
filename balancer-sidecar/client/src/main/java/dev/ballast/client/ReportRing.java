package dev.ballast.client;

import dev.ballast.planner.model.PlanVersion;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bounded report queue between trainer threads (many producers) and the sender thread: a ring of preallocated
 * {@link FlatReport} slots in the style of Vyukov's bounded MPMC queue. Each slot carries a sequence number: {@code p}
 * means "free for position p", {@code p + 1} means "holds the report of position p". A producer claims the tail
 * with one CAS, copies the counts into the slot and publishes with a release store; the consumer claims the head with
 * one CAS, copies the slot out and frees it with a release store. No locks, no allocation in steady state, no
 * system call: nobody is woken (the sender polls, see {@link HttpSidecarClient}).
 *
 * <p>When the ring is full the producer discards the oldest unsent report (the balancer wants fresh loads, and a
 * sidecar that comes back should not first receive minutes-old steps) and counts it. The only case where the new
 * report is dropped instead (also counted) is when the slot it needs is at that instant held by someone else, a
 * consumer copying it out or a producer that claimed the oldest position and has not finished writing it; waiting
 * would block the trainer on another thread's progress, which this queue never does.
 */
final class ReportRing {
    private static final VarHandle SEQ;
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            SEQ = l.findVarHandle(Slot.class, "seq", long.class);
            HEAD = l.findVarHandle(ReportRing.class, "head", long.class);
            TAIL = l.findVarHandle(ReportRing.class, "tail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final class Slot {
        @SuppressWarnings("unused") // accessed through SEQ
        private long seq;
        final FlatReport report = new FlatReport();

        Slot(long seq) {
            this.seq = seq;
        }
    }

    private final Slot[] slots;
    private final int mask;
    private final int capacity;
    private final AtomicLong dropped = new AtomicLong();
    @SuppressWarnings("unused") // accessed through HEAD
    private long head;
    @SuppressWarnings("unused") // accessed through TAIL
    private long tail;

    /** @param capacity a power of two */
    ReportRing(int capacity) {
        if (capacity < 1 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("ring capacity must be a power of two, got " + capacity);
        }
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.slots = new Slot[capacity];
        for (int i = 0; i < capacity; i++) {
            slots[i] = new Slot(i);
        }
    }

    /** Enqueues a checked report ({@link LoadReport#check}); never waits. */
    void offer(long worldGeneration, long step, int gpuRank, int firstLayer, long[][] rows, int experts, PlanVersion adopted) {
        while (true) {
            long t = (long) TAIL.getVolatile(this);
            Slot s = slots[(int) (t & mask)];
            long q = (long) SEQ.getAcquire(s);
            if (q == t) {
                if (TAIL.compareAndSet(this, t, t + 1)) {
                    s.report.fill(worldGeneration, step, gpuRank, firstLayer, rows, experts, adopted);
                    SEQ.setRelease(s, t + 1);
                    return;
                }
            } else if (q < t) {
                // Full: the slot still belongs to position t - capacity.
                long h = (long) HEAD.getVolatile(this);
                if ((long) TAIL.getVolatile(this) != t) {
                    continue;
                }
                if (h == t - capacity && q == h + 1) {
                    if (HEAD.compareAndSet(this, h, h + 1)) {
                        SEQ.setRelease(s, h + capacity); // discarded unread: free for position t
                        dropped.incrementAndGet();
                    }
                } else if ((long) SEQ.getAcquire(s) == q && (h > t - capacity || q == h)) {
                    // Held by a consumer copying it out, or still being written by a slower producer.
                    dropped.incrementAndGet();
                    return;
                }
            }
            // Otherwise another thread moved the tail or the head since we read them: look again.
        }
    }

    /** Copies the oldest report into {@code into} and frees its slot; false when none is ready. Single consumer. */
    boolean poll(FlatReport into) {
        while (true) {
            long h = (long) HEAD.getVolatile(this);
            Slot s = slots[(int) (h & mask)];
            long q = (long) SEQ.getAcquire(s);
            if (q == h + 1) {
                if (HEAD.compareAndSet(this, h, h + 1)) {
                    into.copyFrom(s.report);
                    SEQ.setRelease(s, h + capacity);
                    return true;
                }
            } else if (q <= h) {
                return false; // empty, or the producer of position h has not published yet
            }
            // A producer discarded the head since we read it: look again.
        }
    }

    /** Reports discarded because the ring was full. */
    long dropped() {
        return dropped.get();
    }

    /** Reports waiting (approximate while producers run). */
    int size() {
        long h = (long) HEAD.getVolatile(this);
        long t = (long) TAIL.getVolatile(this);
        return (int) Math.max(0, Math.min(capacity, t - h));
    }

    int capacity() {
        return capacity;
    }
}
