package dev.ballast.operator.placement;

/**
 * One worker of a placed gang: its node rank (position in topology order), the node it runs on, and
 * that node's NVLink domain and rack label values (null where the node lacks the label).
 */
public record WorkerSlot(int nodeRank, String node, String domain, String rack) {}
