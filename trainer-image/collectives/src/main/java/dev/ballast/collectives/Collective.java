package dev.ballast.collectives;

/** Which collective a message belongs to; its code travels in every message so mismatched calls fail loudly. */
enum Collective {
    BARRIER("barrier"),
    BROADCAST("broadcast"),
    ALL_REDUCE("allReduce"),
    ALL_GATHER("allGather"),
    ALL_TO_ALL_V("allToAllV"),
    REDUCE_SCATTER("reduceScatter"),
    SPARSE_ALL_GATHER("sparseAllGather");

    /** The method name a caller knows it by (for error messages). */
    final String method;

    Collective(String method) {
        this.method = method;
    }
}
