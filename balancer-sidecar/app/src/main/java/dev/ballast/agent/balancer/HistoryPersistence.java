package dev.ballast.agent.balancer;

import dev.ballast.contracts.history.LoadHistoryDocument;
import dev.ballast.contracts.history.LoadHistoryJson;
import dev.ballast.planner.load.LoadHistory;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Restores the load history at start and persists it at a modest rate: at most every {@link #WRITE_EVERY_NANOS},
 * only when steps were observed since the last write, whenever a plan is published (so that a balancer lost early in
 * a world, before the rate's next write, still restores at least the history its last plan was made from), and once
 * more at shutdown. A persisted history that cannot be
 * read (corrupt, oversized, another job's, another format) is refused with a warning that says why, and the
 * balancer starts from nothing. Not thread-safe; times are the caller's clock.
 */
final class HistoryPersistence {
    private static final Logger LOG = Logger.getLogger(HistoryPersistence.class.getName());
    /** How often a changed history is written: a restart loses at most this much of it. */
    static final long WRITE_EVERY_NANOS = 30_000_000_000L;

    private final HistoryStore store;
    private final String job;
    private long writtenObservedSteps;
    private long lastWrite = Long.MIN_VALUE / 2;
    private boolean tooLargeReported;

    HistoryPersistence(HistoryStore store, String job) {
        this.store = store;
        this.job = job;
    }

    /** Loads the persisted history into {@code into}; returns its observed steps, 0 when there was no readable one. */
    long restore(LoadHistory into) {
        String json;
        try {
            json = store.load();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "cannot read the persisted load history; starting from nothing", e);
            return 0;
        }
        if (json == null) {
            return 0;
        }
        LoadHistoryDocument d;
        try {
            d = LoadHistoryJson.decode(json);
        } catch (RuntimeException e) {
            LOG.warning("ignoring the persisted load history, starting from nothing: " + e.getMessage());
            return 0;
        }
        if (!d.job().equals(job)) {
            LOG.warning("ignoring the persisted load history, starting from nothing: it is job " + d.job()
                    + "'s, not " + job + "'s");
            return 0;
        }
        into.restore(d.totals(), d.lastStep(), d.observedSteps());
        writtenObservedSteps = d.observedSteps();
        LOG.info("restored the load history of " + d.layers() + " layers × " + d.experts() + " experts as of step "
                + d.lastStep() + " of world generation " + d.generation() + " (" + d.observedSteps() + " steps)");
        return d.observedSteps();
    }

    /** Writes the history when it changed and the last write is long enough ago. */
    void maybeWrite(LoadHistory history, long generation, long nowNanos) {
        if (nowNanos - lastWrite >= WRITE_EVERY_NANOS) {
            flush(history, generation, nowNanos);
        }
    }

    /** Writes the history now if it changed since the last write; a failure is logged and retried later. */
    void flush(LoadHistory history, long generation, long nowNanos) {
        long[][] totals = history.smoothed();
        if (totals == null || history.observedSteps() == writtenObservedSteps) {
            return;
        }
        lastWrite = nowNanos;
        String json;
        try {
            json = LoadHistoryJson.encode(new LoadHistoryDocument(job, generation, Math.max(0, history.lastStep()),
                    history.observedSteps(), totals));
        } catch (IllegalArgumentException e) {
            if (!tooLargeReported) {
                LOG.warning("not persisting the load history: " + e.getMessage());
                tooLargeReported = true;
            }
            return;
        }
        try {
            store.write(json);
            writtenObservedSteps = history.observedSteps();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "persisting the load history failed; will retry", e);
        }
    }
}
