package dev.ballast.collectives;

import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The receiving side of a pod: puts messages for its ranks into its {@link Mailbox}, and holds the peers' Watch calls
 * open for as long as it lives.
 */
final class PeerService {
    private final long generation;
    private final Mailbox mailbox;
    private final List<StreamObserver<byte[]>> watchers = new CopyOnWriteArrayList<>();
    /** The global ranks this pod runs, [first, end); set once the peer table is known. */
    private volatile int firstRank;
    private volatile int endRank;

    PeerService(long generation, Mailbox mailbox) {
        this.generation = generation;
        this.mailbox = mailbox;
    }

    void ranks(int first, int end) {
        this.firstRank = first;
        this.endRank = end;
    }

    ServerServiceDefinition service() {
        return ServerServiceDefinition.builder(Methods.PEER_SERVICE)
            .addMethod(Methods.DELIVER, ServerCalls.asyncUnaryCall(this::deliver))
            .addMethod(Methods.WATCH, ServerCalls.asyncServerStreamingCall((body, reply) -> watchers.add(reply)))
            .build();
    }

    private void deliver(Envelope e, StreamObserver<byte[]> reply) {
        try {
            if (e.generation() != generation) {
                throw new CollectiveException("a message of world generation " + e.generation() + " from rank "
                    + e.src() + " reached a pod of generation " + generation);
            }
            if (e.dst() < firstRank || e.dst() >= endRank) {
                throw new CollectiveException("a message for rank " + e.dst() + " reached the pod that runs ranks "
                    + firstRank + "-" + (endRank - 1));
            }
            mailbox.deliver(e);
        } catch (RuntimeException refused) {
            reply.onError(Status.FAILED_PRECONDITION.withDescription(refused.getMessage()).asRuntimeException());
            return;
        }
        reply.onNext(Methods.EMPTY);
        reply.onCompleted();
    }

    /** Ends the peers' Watch calls: they learn that this pod left on purpose. */
    void leave() {
        for (StreamObserver<byte[]> w : watchers) {
            try {
                w.onCompleted();
            } catch (RuntimeException ignored) {
                // the watcher's call was already cancelled (it left first)
            }
        }
        watchers.clear();
    }
}
