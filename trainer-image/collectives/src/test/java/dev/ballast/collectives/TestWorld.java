package dev.ballast.collectives;

import dev.ballast.contracts.env.LocalPorts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Several "pods" inside the test JVM: each its own gRPC server on a 127.0.0.1 port and its own rendezvous client, as
 * separate processes would have, with 1-3 local ranks each.
 */
final class TestWorld implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(20);

    final List<CommNode> nodes;

    private TestWorld(List<CommNode> nodes) {
        this.nodes = nodes;
    }

    /** Pods with the given local rank counts, generation 1, all joined. */
    static TestWorld of(int... localRanks) {
        int port = LocalPorts.listenPort();
        List<CompletableFuture<CommNode>> joining = new ArrayList<>();
        for (int n = 0; n < localRanks.length; n++) {
            CommConfig c = config(port, localRanks.length, n, localRanks[n], 1, TIMEOUT, TIMEOUT);
            joining.add(async(() -> CommNode.join(c)));
        }
        List<CommNode> nodes = new ArrayList<>();
        for (CompletableFuture<CommNode> j : joining) nodes.add(j.join());
        return new TestWorld(nodes);
    }

    static CommConfig config(int masterPort, int nnodes, int nodeRank, int localRanks, long generation,
        Duration rendezvousTimeout, Duration timeout) {
        return new CommConfig("127.0.0.1", masterPort, nnodes, nodeRank, localRanks, generation, "127.0.0.1", "", 0,
            "pod-" + nodeRank, rendezvousTimeout, timeout);
    }

    int worldSize() {
        return nodes.get(0).worldSize();
    }

    /** The rank communicators in global rank order. */
    List<RankComm> ranks() {
        List<RankComm> out = new ArrayList<>();
        for (CommNode n : nodes) for (int l = 0; l < n.localRanks(); l++) out.add(n.rank(l));
        return out;
    }

    /** Runs {@code body} on every rank, each on its own thread, and returns the results by global rank. */
    <T> List<T> run(Function<RankComm, T> body) {
        List<T> out = new ArrayList<>();
        for (CompletableFuture<T> f : start(body)) {
            try {
                out.add(f.get(60, TimeUnit.SECONDS));
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : new RuntimeException(e.getCause());
            } catch (Exception e) {
                throw new AssertionError("a rank did not finish", e);
            }
        }
        return out;
    }

    /** Starts {@code body} on every rank and returns the futures by global rank. */
    <T> List<CompletableFuture<T>> start(Function<RankComm, T> body) {
        List<CompletableFuture<T>> futures = new ArrayList<>();
        for (RankComm r : ranks()) futures.add(async(() -> body.apply(r)));
        return futures;
    }

    /**
     * Runs {@code task} on a thread of its own: pods and ranks block on each other, so a bounded pool (the common
     * pool has cores - 1 threads) could leave one waiting for a thread while the others wait for it.
     */
    static <T> CompletableFuture<T> async(Supplier<T> task) {
        return CompletableFuture.supplyAsync(task, r -> {
            Thread t = new Thread(r, "test-pod-or-rank");
            t.setDaemon(true);
            t.start();
        });
    }

    @Override
    public void close() {
        for (CommNode n : nodes) n.close();
    }
}
