package dev.ballast.collectives;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The sending side of a pod: one gRPC channel to every other pod, a Watch call on each to notice a pod that dies
 * (its connection breaks, and every rank waiting for it fails at once), and asynchronous delivery of messages.
 * Calls fail fast rather than wait for a connection: every peer was listening when it registered, so a peer that
 * cannot be reached is gone.
 */
final class PeerLinks implements AutoCloseable {
    private final PeerTable table;
    private final int self;
    private final Mailbox mailbox;
    private final Duration timeout;
    private final ManagedChannel[] channels;
    private volatile boolean closing;

    PeerLinks(PeerTable table, int self, Mailbox mailbox, Duration timeout) {
        this.table = table;
        this.self = self;
        this.mailbox = mailbox;
        this.timeout = timeout;
        this.channels = new ManagedChannel[table.nodes()];
        for (Peer p : table.peers()) {
            if (p.nodeRank() == self) continue;
            channels[p.nodeRank()] = NettyChannelBuilder.forAddress(p.host(), p.port())
                .usePlaintext()
                .directExecutor() // the callbacks only complete futures and mark pods lost
                .maxInboundMessageSize(Integer.MAX_VALUE)
                .keepAliveTime(30, TimeUnit.SECONDS)
                .keepAliveTimeout(10, TimeUnit.SECONDS)
                .keepAliveWithoutCalls(true)
                .build();
            watch(p.nodeRank());
        }
    }

    /** Sends e to the pod that runs rank e.dst(); the future fails (and the pod counts as lost) if it cannot. */
    CompletableFuture<Void> send(Envelope e) {
        int node = table.nodeOf(e.dst());
        CompletableFuture<Void> done = new CompletableFuture<>();
        ClientCalls.asyncUnaryCall(channels[node].newCall(Methods.DELIVER, CallOptions.DEFAULT
                .withDeadlineAfter(timeout.toMillis(), TimeUnit.MILLISECONDS)),
            e, new StreamObserver<>() {
                @Override
                public void onNext(byte[] reply) {
                }

                @Override
                public void onError(Throwable t) {
                    String why = "sending " + e.collective().method + " call #" + e.seq() + " from rank " + e.src()
                        + " to rank " + e.dst() + " on " + table.describe(node) + " failed: " + t.getMessage();
                    lost(node, why);
                    done.completeExceptionally(new CollectiveException(why, t));
                }

                @Override
                public void onCompleted() {
                    done.complete(null);
                }
            });
        return done;
    }

    private void watch(int node) {
        StreamObserver<byte[]> observer = new StreamObserver<>() {
            @Override
            public void onNext(byte[] value) {
            }

            @Override
            public void onError(Throwable t) {
                if (!closing) lost(node, table.describe(node) + " went away: " + t.getMessage());
            }

            @Override
            public void onCompleted() {
                if (!closing) lost(node, table.describe(node) + " left the group (it closed its collectives)");
            }
        };
        ClientCalls.asyncServerStreamingCall(channels[node].newCall(Methods.WATCH, CallOptions.DEFAULT), Methods.EMPTY,
            observer);
    }

    private void lost(int node, String reason) {
        int first = table.firstRank(node);
        int[] ranks = new int[table.peers().get(node).localRanks()];
        for (int i = 0; i < ranks.length; i++) ranks[i] = first + i;
        mailbox.markLost(ranks, reason);
    }

    @Override
    public void close() {
        closing = true;
        for (ManagedChannel c : channels) if (c != null) c.shutdownNow();
    }
}
