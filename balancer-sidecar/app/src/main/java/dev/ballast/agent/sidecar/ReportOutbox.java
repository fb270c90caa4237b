package dev.ballast.agent.sidecar;

import dev.ballast.agent.proto.SidecarMessage;

import java.util.ArrayDeque;

/**
 * Load reports waiting for the balancer. Bounded: while the balancer is unreachable the oldest report is dropped
 * (and counted) so memory stays bounded and the trainer is never blocked. Not thread-safe; the owner serialises.
 */
final class ReportOutbox {
    private final int capacity;
    private final ArrayDeque<SidecarMessage> queue = new ArrayDeque<>();
    private long dropped;

    ReportOutbox(int capacity) {
        this.capacity = capacity;
    }

    void add(SidecarMessage m) {
        if (queue.size() == capacity) {
            queue.pollFirst();
            dropped++;
        }
        queue.addLast(m);
    }

    SidecarMessage poll() {
        return queue.pollFirst();
    }

    int size() {
        return queue.size();
    }

    long dropped() {
        return dropped;
    }
}
