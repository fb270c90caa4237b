package dev.ballast.client;

import dev.ballast.contracts.plan.PlanVersion;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bounded report queue between trainer threads (many producers) and the sender thread (one consumer). Reports
 * live in {@code capacity} preallocated {@link FlatReport} buffers; a Vyukov-style bounded queue carries buffer
 * indices in order, and free buffers sit on a lock-free LIFO stack. No locks, no allocation in steady state, no
 * system call: nobody is woken (the sender polls, see {@link HttpSidecarClient}).
 *
 * <p><b>Why a LIFO of buffers and not a ring of slots.</b> A producer takes the buffer the sender freed last, which
 * the sender has just read: in steady state the ranks of a pod write into the same handful of 30 KB buffers, which
 * stay in cache and mapped. Cycling through all 256 buffers (7.7 MB at 60×64) makes every copy land on memory last
 * touched seconds ago; on the project's VM that put 10 % of the copies above 50 µs (docs/benchmarks-data-path.md).
 *
 * <p><b>Queue:</b> cell {@code i} has a sequence number: {@code p} means "free for position p", {@code p + 1} means
 * "holds the buffer of position p". A producer claims the tail with one CAS, stores the index and publishes with a
 * release store; a consumer claims the head with one CAS, reads the index and frees the cell with a release store.
 *
 * <p><b>Full:</b> when no buffer is free, every buffer is queued (the sidecar is slow or absent): the producer takes
 * the oldest queued report's buffer, discarding that report, and counts it; fresh loads matter more to the balancer
 * than minutes-old steps. The new report is dropped instead (also counted) only when nothing can be taken without
 * waiting for another thread: every buffer is being filled or sent, or the oldest position is still being written.
 */
final class ReportRing {
    private static final VarHandle SEQ = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    private static final VarHandle TOP;
    /** Tries before giving up on a queue cell that a dequeuing thread has claimed but not yet freed (a few instructions). */
    private static final int CELL_SPINS = 64;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(ReportRing.class, "head", long.class);
            TAIL = l.findVarHandle(ReportRing.class, "tail", long.class);
            TOP = l.findVarHandle(ReportRing.class, "top", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final FlatReport[] buffers;
    private final int capacity;
    private final int mask;
    /** Queue cells: sequence numbers (accessed through SEQ) and the buffer index each holds. */
    private final long[] seq;
    private final int[] cell;
    /** Free stack: {@code next[i]} is the buffer below buffer i, plus one (0: none). */
    private final int[] next;
    private final AtomicLong dropped = new AtomicLong();
    @SuppressWarnings("unused") // HEAD
    private long head;
    @SuppressWarnings("unused") // TAIL
    private long tail;
    /** Top of the free stack: a version tag (high 32 bits, against ABA) and the top buffer's index plus one (0: empty). */
    @SuppressWarnings("unused") // TOP
    private long top;

    /** @param capacity a power of two */
    ReportRing(int capacity) {
        if (capacity < 1 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("ring capacity must be a power of two, got " + capacity);
        }
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.buffers = new FlatReport[capacity];
        this.seq = new long[capacity];
        this.cell = new int[capacity];
        this.next = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            buffers[i] = new FlatReport();
            seq[i] = i;
            next[i] = i; // buffer i sits on buffer i - 1; buffer 0 at the bottom
        }
        top = capacity; // buffer capacity - 1 on top, tag 0
    }

    /** Enqueues a checked report ({@link StepLoads#check}); never waits for another thread. */
    void offer(long worldGeneration, long step, int gpuRank, int firstLayer, long[][] rows, int experts, PlanVersion adopted,
               StepTiming timing) {
        int b = popFree();
        if (b < 0) {
            b = dequeue();
            dropped.incrementAndGet(); // the oldest report, or this one if nothing could be taken
            if (b < 0) {
                return;
            }
        }
        buffers[b].fill(worldGeneration, step, gpuRank, firstLayer, rows, experts, adopted, timing);
        if (!enqueue(b)) {
            pushFree(b);
            dropped.incrementAndGet();
        }
    }

    /** Copies the oldest report into {@code into} and frees its buffer; false when none is ready. Single consumer. */
    boolean poll(FlatReport into) {
        int b = dequeue();
        if (b < 0) {
            return false;
        }
        into.copyFrom(buffers[b]);
        pushFree(b);
        return true;
    }

    private boolean enqueue(int b) {
        for (int spins = 0; spins < CELL_SPINS; ) {
            long t = (long) TAIL.getVolatile(this);
            int i = (int) (t & mask);
            long q = (long) SEQ.getAcquire(seq, i);
            if (q == t) {
                if (TAIL.compareAndSet(this, t, t + 1)) {
                    cell[i] = b;
                    SEQ.setRelease(seq, i, t + 1);
                    return true;
                }
            } else if (q < t) {
                // Position t - capacity was dequeued (this thread holds a buffer, so the queue is not full) but its
                // cell is not freed yet: the dequeuing thread is between two instructions.
                spins++;
                Thread.onSpinWait();
            }
        }
        return false;
    }

    /** The oldest queued buffer, or -1 when the queue is empty or its oldest position is still being written. */
    private int dequeue() {
        while (true) {
            long h = (long) HEAD.getVolatile(this);
            int i = (int) (h & mask);
            long q = (long) SEQ.getAcquire(seq, i);
            if (q == h + 1) {
                if (HEAD.compareAndSet(this, h, h + 1)) {
                    int b = cell[i];
                    SEQ.setRelease(seq, i, h + capacity);
                    return b;
                }
            } else if (q <= h) {
                return -1;
            }
            // Another thread took the head since we read it: look again.
        }
    }

    private int popFree() {
        while (true) {
            long t = (long) TOP.getVolatile(this);
            int first = (int) t;
            if (first == 0) {
                return -1;
            }
            int b = first - 1;
            long n = ((t >>> 32) + 1) << 32 | (next[b] & 0xFFFF_FFFFL);
            if (TOP.compareAndSet(this, t, n)) {
                return b;
            }
        }
    }

    private void pushFree(int b) {
        while (true) {
            long t = (long) TOP.getVolatile(this);
            next[b] = (int) t;
            if (TOP.compareAndSet(this, t, ((t >>> 32) + 1) << 32 | (b + 1))) {
                return;
            }
        }
    }

    /** Reports discarded because the queue was full. */
    long dropped() {
        return dropped.get();
    }

    /** Reports waiting (approximate while producers run). */
    int size() {
        long h = (long) HEAD.getVolatile(this);
        long t = (long) TAIL.getVolatile(this);
        return (int) Math.max(0, Math.min(capacity, t - h));
    }

    /** Buffers whose counts arrays have been allocated: few in steady state, since free buffers are reused LIFO. */
    int buffersInUse() {
        int n = 0;
        for (FlatReport f : buffers) {
            n += f.counts.length > 0 ? 1 : 0;
        }
        return n;
    }
}
