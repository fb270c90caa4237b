package dev.ballast.agent.balancer;

/**
 * Plan sequence numbers that no incarnation of the balancer reuses: taken from blocks of {@link #BLOCK} that are
 * reserved in status.balancer before their first number is used; a restart continues above the reservation.
 */
final class PlanSequencer {
    static final int BLOCK = 64;

    private final StatusWriter status;
    private long reserved;
    private long next;

    PlanSequencer(StatusWriter status) {
        this.status = status;
        this.reserved = status.current().planSequence();
        this.next = reserved + 1;
    }

    /** The next sequence; reserves a new block first when needed, and throws (using none) if that fails. */
    long next(long nowNanos) {
        if (next > reserved) {
            long upTo = next + BLOCK - 1;
            status.reserveSequencesUpTo(upTo, nowNanos);
            reserved = upTo;
        }
        return next++;
    }
}
