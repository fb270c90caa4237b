package dev.ballast.collectives;

/**
 * One collective call as every rank must make it: the parts that travel in each message's header and that the
 * receiver compares with its own call.
 */
record Call(long seq, Collective collective, Dtype dtype, ReduceOp op, long check) {

    static Call of(Envelope e) {
        return new Call(e.seq(), e.collective(), e.dtype(), e.reduceOp(), e.check());
    }

    /** "allReduce call #3 (SUM of FLOAT, check 100)", for error messages. */
    String describe() {
        return collective.method + " call #" + seq + " (" + (op == null ? "" : op + " of ") + dtype
            + (check >= 0 ? ", check " + check : "") + ")";
    }

    boolean matches(Envelope e) {
        return e.collective() == collective && e.dtype() == dtype && e.reduceOp() == op && e.check() == check;
    }
}
