package dev.ballast.contracts.world;

import java.util.Comparator;
import java.util.List;

/**
 * The world the operator publishes in ConfigMap {@code <job>-world}, key {@link #CONFIG_MAP_KEY}, and the balancer
 * reads (docs/contracts.md). Generation 0 (nothing committed yet) has no workers and no spec; a committed world has
 * both, the spec frozen at commit. Workers are held in node-rank order, ranks 0..n-1 without gaps.
 */
public record WorldDocument(String job, String namespace, long generation, int gpusPerWorker, PlanningSpec spec,
                            List<WorldWorker> nodes) {
    public static final String CONFIG_MAP_KEY = "world.json";

    public WorldDocument {
        if (generation < 0) {
            throw new IllegalArgumentException("generation must be >= 0, got " + generation);
        }
        if (gpusPerWorker < 1) {
            throw new IllegalArgumentException("gpusPerWorker must be >= 1, got " + gpusPerWorker);
        }
        nodes = nodes.stream().sorted(Comparator.comparingInt(WorldWorker::nodeRank)).toList();
        for (int r = 0; r < nodes.size(); r++) {
            if (nodes.get(r).nodeRank() != r) {
                throw new IllegalArgumentException("node ranks must be 0.." + (nodes.size() - 1) + " without repeats");
            }
        }
        if (!nodes.isEmpty() && spec == null) {
            throw new IllegalArgumentException("a world with workers must carry its spec");
        }
        job = job == null ? "" : job;
        namespace = namespace == null ? "" : namespace;
    }

    /** Before the first commit: generation 0, no workers, no spec. */
    public static WorldDocument uncommitted(String job, String namespace, int gpusPerWorker) {
        return new WorldDocument(job, namespace, 0, gpusPerWorker, null, List.of());
    }

    public int gpus() {
        return nodes.size() * gpusPerWorker;
    }

    /** The worker of a pod index, or null when the pod is not part of this world. */
    public WorldWorker byPodIndex(int index) {
        for (WorldWorker n : nodes) {
            if (n.index() == index) {
                return n;
            }
        }
        return null;
    }
}
