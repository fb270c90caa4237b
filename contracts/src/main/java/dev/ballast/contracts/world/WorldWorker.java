package dev.ballast.contracts.world;

/**
 * One worker pod of a committed world: its stable pod index, its pod name, its node rank in this world (GPU rank =
 * nodeRank × gpusPerWorker + local rank) and where it runs. {@code domain} and {@code rack} are "" when the node
 * carries no topology label.
 */
public record WorldWorker(int index, String pod, int nodeRank, String node, String domain, String rack) {
    public WorldWorker {
        if (index < 0 || nodeRank < 0) {
            throw new IllegalArgumentException("index and nodeRank must be >= 0, got " + index + " and " + nodeRank);
        }
        pod = pod == null ? "" : pod;
        node = node == null ? "" : node;
        domain = domain == null ? "" : domain;
        rack = rack == null ? "" : rack;
    }
}
