package dev.ballast.collectives;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The rendezvous store the node-rank-0 pod hosts at MASTER_ADDR:MASTER_PORT for its world generation. Holds every
 * registration's call open until all NNODES pods registered, then answers them all with the same peer table. Refuses
 * pods of another generation, a wrong NNODES, and registrations after the group formed or the deadline passed
 * (docs/collectives.md, "Rendezvous").
 */
final class RendezvousStore implements AutoCloseable {
    private static final Context.Key<SocketAddress> REMOTE = Context.key("ballast-remote-address");

    private record Pending(Peer peer, StreamObserver<byte[]> reply) {
    }

    private final long generation;
    private final int nnodes;
    private final Duration timeout;
    private final Map<Integer, Pending> pending = new TreeMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ballast-rendezvous-deadline");
        t.setDaemon(true);
        return t;
    });
    private PeerTable formed;
    private String failure;

    RendezvousStore(long generation, int nnodes, Duration timeout) {
        this.generation = generation;
        this.nnodes = nnodes;
        this.timeout = timeout;
        timer.schedule(this::expire, timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    ServerServiceDefinition service() {
        ServerServiceDefinition plain = ServerServiceDefinition.builder(Methods.RENDEZVOUS_SERVICE)
            .addMethod(Methods.REGISTER, ServerCalls.asyncUnaryCall(this::register))
            .build();
        return ServerInterceptors.intercept(plain, new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
                ServerCallHandler<Q, R> next) {
                Context ctx = Context.current().withValue(REMOTE, call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
                return Contexts.interceptCall(ctx, call, headers, next);
            }
        });
    }

    private void register(byte[] body, StreamObserver<byte[]> reply) {
        Registration r;
        try {
            r = Registration.decode(body);
        } catch (RuntimeException e) {
            reply.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
            return;
        }
        String refusal = refusal(r);
        if (refusal != null) {
            reply.onError(Status.FAILED_PRECONDITION.withDescription(refusal).asRuntimeException());
            return;
        }
        Peer peer;
        try {
            peer = r.toPeer(observedHost());
        } catch (IllegalArgumentException e) {
            reply.onError(Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
            return;
        }
        List<Pending> answer = null;
        synchronized (this) {
            String late = lateRefusal(r);
            if (late != null) {
                reply.onError(Status.FAILED_PRECONDITION.withDescription(late).asRuntimeException());
                return;
            }
            Pending previous = pending.put(r.nodeRank(), new Pending(peer, reply));
            if (previous != null) { // the same pod retried, or two pods claim one node rank: the newest wins
                previous.reply().onError(Status.ALREADY_EXISTS.withDescription("node rank " + r.nodeRank()
                    + " registered again from " + peer.endpoint() + "; this registration is replaced").asRuntimeException());
            }
            if (reply instanceof ServerCallStreamObserver<byte[]> call) {
                Pending mine = pending.get(r.nodeRank());
                call.setOnCancelHandler(() -> dropIfStillPending(r.nodeRank(), mine));
            }
            if (pending.size() == nnodes) {
                List<Peer> peers = new ArrayList<>();
                for (Pending p : pending.values()) peers.add(p.peer());
                formed = new PeerTable(generation, peers);
                answer = new ArrayList<>(pending.values());
            }
        }
        if (answer != null) {
            byte[] table = formed.encode();
            for (Pending p : answer) {
                p.reply().onNext(table);
                p.reply().onCompleted();
            }
        }
    }

    /** Why a registration can never join this group, whatever the timing. */
    private String refusal(Registration r) {
        if (r.generation() != generation) {
            String which = r.generation() < generation ? "an older" : "a newer";
            return "node rank " + r.nodeRank() + " (" + r.name() + ") registered for world generation " + r.generation()
                + " at the rendezvous store of generation " + generation + ": it belongs to " + which
                + " world and is refused";
        }
        if (r.nnodes() != nnodes) {
            return "node rank " + r.nodeRank() + " (" + r.name() + ") expects NNODES=" + r.nnodes()
                + " but generation " + generation + " has " + nnodes + " pods";
        }
        if (r.nodeRank() < 0 || r.nodeRank() >= nnodes) {
            return "node rank " + r.nodeRank() + " (" + r.name() + ") is outside 0.." + (nnodes - 1);
        }
        return null;
    }

    /** Why a registration comes too late (called holding the lock). */
    private String lateRefusal(Registration r) {
        if (formed != null) {
            return "node rank " + r.nodeRank() + " (" + r.name() + ") registered after the group of generation "
                + generation + " formed; a restarted pod needs a new world";
        }
        return failure;
    }

    private synchronized void dropIfStillPending(int nodeRank, Pending mine) {
        if (formed == null && pending.get(nodeRank) == mine) pending.remove(nodeRank);
    }

    private void expire() {
        List<Pending> waiting;
        synchronized (this) {
            if (formed != null) return;
            List<Integer> missing = new ArrayList<>();
            for (int n = 0; n < nnodes; n++) if (!pending.containsKey(n)) missing.add(n);
            failure = "rendezvous of world generation " + generation + " timed out after " + timeout.toSeconds()
                + " s: node ranks " + missing + " never registered (registered: " + pending.keySet() + " of NNODES="
                + nnodes + ")";
            waiting = new ArrayList<>(pending.values());
            pending.clear();
        }
        for (Pending p : waiting) {
            p.reply().onError(Status.DEADLINE_EXCEEDED.withDescription(failure).asRuntimeException());
        }
    }

    private static String observedHost() {
        SocketAddress remote = REMOTE.get();
        if (remote instanceof InetSocketAddress inet && inet.getAddress() != null) {
            return inet.getAddress().getHostAddress();
        }
        throw new IllegalArgumentException("the registration named no host and came from " + remote
            + ", which is not an IP address");
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
