package dev.ballast.agent.balancer;

import dev.ballast.contracts.status.BalancerStatus;

import java.util.ArrayDeque;
import java.util.List;

/**
 * The job page's time series: one point per balancer tick that saw new steps, the newest {@code capacity} kept (about
 * ten minutes at one a second), so the page draws imbalance and plan versions over time without a metrics store.
 */
final class PageHistory {
    /**
     * One tick's view: measured imbalance (busiest GPU over mean) of the last step under the static layout and under
     * the plan in use, the imbalance status.balancer predicts for the newest plan, and that plan's version ("" before
     * the first), and status.balancer.measured as of the tick (the slowest rank's step and compute time, means over
     * the last 32 complete steps under the static layout and under the plans; null before the world measured any).
     */
    record Point(long unixMillis, long generation, long step, double measuredBefore, double measuredAfter,
                 double predictedAfter, String planVersion, BalancerStatus.Measured times) {
    }

    private final int capacity;
    private final ArrayDeque<Point> points = new ArrayDeque<>();

    PageHistory(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive, got " + capacity);
        }
        this.capacity = capacity;
    }

    /** Adds {@code p} unless it shows the same step of the same generation as the newest point. */
    void add(Point p) {
        Point newest = points.peekLast();
        if (newest != null && newest.generation() == p.generation() && newest.step() == p.step()) {
            return;
        }
        if (points.size() == capacity) {
            points.removeFirst();
        }
        points.addLast(p);
    }

    List<Point> points() {
        return List.copyOf(points);
    }
}
