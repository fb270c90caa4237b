package dev.ballast.operator.world;

/**
 * One worker's place in a world: stable pod index, node rank in this world, and the node chosen for it.
 * Domain and rack may be null when the node carries no topology label.
 */
public record Seat(int index, int nodeRank, String node, String domain, String rack) {}
