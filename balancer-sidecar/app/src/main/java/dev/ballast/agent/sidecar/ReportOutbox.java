package dev.ballast.agent.sidecar;

import dev.ballast.agent.proto.SidecarMessage;

import java.util.ArrayDeque;

/**
 * Load reports waiting for the balancer. Bounded: while the balancer is unreachable the oldest report is dropped
 * (and counted) so memory stays bounded and the trainer is never blocked. Each entry keeps when it was queued, so
 * the sidecar can tell how long reports wait (its report latency). Not thread-safe; the owner serialises.
 */
final class ReportOutbox {
    /** A queued message and when it was queued (the owner's nano clock). */
    record Entry(SidecarMessage message, long queuedNanos) {
    }

    private final int capacity;
    private final ArrayDeque<Entry> queue = new ArrayDeque<>();
    private long dropped;

    ReportOutbox(int capacity) {
        this.capacity = capacity;
    }

    void add(SidecarMessage m, long nowNanos) {
        if (queue.size() == capacity) {
            queue.pollFirst();
            dropped++;
        }
        queue.addLast(new Entry(m, nowNanos));
    }

    Entry poll() {
        return queue.pollFirst();
    }

    int size() {
        return queue.size();
    }

    long dropped() {
        return dropped;
    }
}
