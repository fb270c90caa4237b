package dev.ballast.collectives;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * One pod's membership in its group: a gRPC server (which on node rank 0 also hosts the rendezvous store), the peer
 * table, and a {@link RankComm} per local rank. Join once per process and world generation; close when done.
 */
public final class CommNode implements AutoCloseable {
    private final CommConfig config;
    private final PeerTable table;
    private final Server server;
    private final PeerService service;
    private final PeerLinks links;
    private final RendezvousStore store;
    private final RankComm[] ranks;

    private CommNode(CommConfig config, PeerTable table, Server server, PeerService service, PeerLinks links,
        RendezvousStore store, Mailbox mailbox) {
        this.config = config;
        this.table = table;
        this.server = server;
        this.service = service;
        this.links = links;
        this.store = store;
        int first = table.firstRank(config.nodeRank());
        this.ranks = new RankComm[config.localRanks()];
        for (int l = 0; l < ranks.length; l++) {
            ranks[l] = new RankComm(new RankExchange(first + l, table, config.nodeRank(), config.generation(), mailbox,
                links, config.timeout()));
        }
    }

    /**
     * Starts this pod's endpoint, registers at the rendezvous store and returns once all NNODES pods registered.
     *
     * @throws CollectiveException if the store refuses this pod (another generation) or the deadline passes; the
     *     message names the pods that never registered
     */
    public static CommNode join(CommConfig config) {
        Mailbox mailbox = new Mailbox();
        PeerService service = new PeerService(config.generation(), mailbox);
        RendezvousStore store = config.nodeRank() == 0
            ? new RendezvousStore(config.generation(), config.nnodes(), config.rendezvousTimeout()) : null;
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(config.bindHost(),
                config.listenPort()))
            .directExecutor() // the handlers never block: they decode a message into the mailbox or hold a call
            .maxInboundMessageSize(Integer.MAX_VALUE)
            .permitKeepAliveTime(10, TimeUnit.SECONDS)
            .permitKeepAliveWithoutCalls(true)
            .addService(service.service());
        if (store != null) builder.addService(store.service());
        Server server = builder.build();
        try {
            server.start();
        } catch (IOException e) {
            if (store != null) store.close();
            throw new UncheckedIOException("node rank " + config.nodeRank() + " cannot listen on " + config.bindHost()
                + ":" + config.listenPort() + ": " + e.getMessage(), e);
        }
        PeerTable table;
        try {
            table = RendezvousClient.register(config.masterAddr(), config.masterPort(),
                new Registration(config.generation(), config.nnodes(), config.nodeRank(), config.localRanks(),
                    config.advertiseHost(), server.getPort(), config.name()),
                config.rendezvousTimeout());
        } catch (RuntimeException e) {
            server.shutdownNow();
            if (store != null) store.close();
            throw e;
        }
        int first = table.firstRank(config.nodeRank());
        service.ranks(first, first + config.localRanks());
        PeerLinks links = new PeerLinks(table, config.nodeRank(), mailbox, config.timeout());
        return new CommNode(config, table, server, service, links, store, mailbox);
    }

    /** The communicator of local rank {@code localRank}; use it from one thread. */
    public RankComm rank(int localRank) {
        if (localRank < 0 || localRank >= ranks.length) {
            throw new IllegalArgumentException("local rank " + localRank + " is outside 0.." + (ranks.length - 1)
                + " (NPROC_PER_NODE=" + ranks.length + ")");
        }
        return ranks[localRank];
    }

    public PeerTable peers() {
        return table;
    }

    public int worldSize() {
        return table.worldSize();
    }

    public int nodeRank() {
        return config.nodeRank();
    }

    public int localRanks() {
        return ranks.length;
    }

    /** The port this pod's endpoint listens on (MASTER_PORT on node rank 0). */
    public int port() {
        return server.getPort();
    }

    /**
     * Leaves the group: peers still waiting for this pod's ranks fail at once. Call after the last collective (a final
     * {@link RankComm#barrier()} makes sure every pod is done).
     */
    @Override
    public void close() {
        service.leave();
        links.close();
        server.shutdown();
        try {
            if (!server.awaitTermination(5, TimeUnit.SECONDS)) server.shutdownNow();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            server.shutdownNow();
        }
        if (store != null) store.close();
    }

    /** Stops at once, as a crash would (tests). */
    void kill() {
        links.close();
        server.shutdownNow();
        if (store != null) store.close();
    }
}
