package dev.ballast.agent.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * One direction of a simulated connection: each message may be dropped, duplicated and delayed by a random number
 * of ticks (which reorders it behind later ones). With faults off it delivers everything in order on the next tick.
 */
final class LossyLink<T> {
    private record InFlight<T>(long due, long seq, T msg) {
    }

    private final Random rnd;
    private final PriorityQueue<InFlight<T>> queue = new PriorityQueue<>((a, b) -> a.due != b.due
            ? Long.compare(a.due, b.due) : Long.compare(a.seq, b.seq));
    private long seq;
    double drop;
    double duplicate;
    int maxDelay;
    long dropped;
    long duplicated;

    LossyLink(Random rnd) {
        this.rnd = rnd;
    }

    void send(long now, T msg, boolean reliable) {
        if (!reliable && rnd.nextDouble() < drop) {
            dropped++;
            return;
        }
        int copies = !reliable && rnd.nextDouble() < duplicate ? 2 : 1;
        duplicated += copies - 1;
        for (int i = 0; i < copies; i++) {
            long delay = 1 + (maxDelay == 0 || reliable ? 0 : rnd.nextInt(maxDelay + 1));
            queue.add(new InFlight<>(now + delay, seq++, msg));
        }
    }

    List<T> due(long now) {
        List<T> out = new ArrayList<>();
        while (!queue.isEmpty() && queue.peek().due <= now) {
            out.add(queue.poll().msg);
        }
        return out;
    }

    void clear() {
        queue.clear();
    }
}
