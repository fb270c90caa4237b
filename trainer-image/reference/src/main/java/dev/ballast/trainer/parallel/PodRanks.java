package dev.ballast.trainer.parallel;

import dev.ballast.collectives.CommConfig;
import dev.ballast.collectives.CommNode;
import dev.ballast.collectives.RankComm;
import dev.ballast.contracts.env.LocalPorts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiFunction;

/**
 * The pods a process runs ranks for: the one pod of a real worker (joined from the env), or several pods in this
 * JVM on 127.0.0.1 for a local simulation, each with its own gRPC endpoint and rendezvous registration as separate
 * processes would have. Runs one thread per local rank.
 */
public final class PodRanks implements AutoCloseable {

    /** The world generation of a local simulation (a pod's comes from BALLAST_WORLD_GENERATION). */
    public static final long LOCAL_GENERATION = 1;

    private final List<CommNode> nodes;
    private final long generation;

    private PodRanks(List<CommNode> nodes, long generation) {
        this.nodes = nodes;
        this.generation = generation;
    }

    /** This process's pod, as the operator's env describes it (docs/collectives.md, "Configuration"). */
    public static PodRanks join(CommConfig config) {
        return new PodRanks(List.of(CommNode.join(config)), config.generation());
    }

    /** pods pods of ranksPerPod ranks each, all in this JVM, joined over loopback. */
    public static PodRanks local(int pods, int ranksPerPod, Duration timeout) {
        if (pods < 1 || ranksPerPod < 1) {
            throw new IllegalArgumentException("a local world needs at least one pod of one rank, got " + pods
                    + " pods of " + ranksPerPod);
        }
        int port = LocalPorts.listenPort();
        List<CompletableFuture<CommNode>> joining = new ArrayList<>();
        for (int n = 0; n < pods; n++) {
            CommConfig c = new CommConfig("127.0.0.1", port, pods, n, ranksPerPod, LOCAL_GENERATION, "127.0.0.1", "",
                    0, "pod-" + n, timeout, timeout);
            joining.add(CompletableFuture.supplyAsync(() -> CommNode.join(c)));
        }
        List<CommNode> nodes = new ArrayList<>();
        for (CompletableFuture<CommNode> j : joining) {
            nodes.add(join(j));
        }
        return new PodRanks(nodes, LOCAL_GENERATION);
    }

    /** The world generation the pods joined: plans of it are the ones the ranks may adopt. */
    public long generation() {
        return generation;
    }

    public int worldSize() {
        return nodes.get(0).worldSize();
    }

    /** Node (pod) of every global rank: the quota rule's locality. */
    public int[] nodeOfRank() {
        int[] node = new int[worldSize()];
        for (int r = 0; r < node.length; r++) {
            node[r] = nodes.get(0).peers().nodeOf(r);
        }
        return node;
    }

    /** Runs body(comm, node table) on every local rank, one thread each; results in local rank order. */
    public <T> List<T> run(BiFunction<RankComm, int[], T> body) {
        int[] node = nodeOfRank();
        int threads = nodes.stream().mapToInt(CommNode::localRanks).sum();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<CompletableFuture<T>> futures = new ArrayList<>();
            for (CommNode n : nodes) {
                for (int l = 0; l < n.localRanks(); l++) {
                    RankComm comm = n.rank(l);
                    futures.add(CompletableFuture.supplyAsync(() -> body.apply(comm, node), pool));
                }
            }
            List<T> out = new ArrayList<>();
            for (CompletableFuture<T> f : futures) {
                out.add(join(f));
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    @Override
    public void close() {
        nodes.forEach(CommNode::close);
    }

    private static <T> T join(CompletableFuture<T> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }
}
