package dev.ballast.collectives;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Registers this pod at the rendezvous store and waits for the peer table. The call waits for the store to come up
 * (the node-rank-0 pod may start after this one) and gives up at the deadline with an error that says where it looked.
 */
final class RendezvousClient {
    private RendezvousClient() {
    }

    /** Slack beyond the store's own deadline, so the store's answer (naming the missing pods) normally arrives first. */
    private static final Duration SLACK = Duration.ofSeconds(5);

    static PeerTable register(String masterAddr, int masterPort, Registration registration, Duration timeout) {
        ManagedChannel channel = NettyChannelBuilder.forAddress(masterAddr, masterPort).usePlaintext().build();
        try {
            byte[] reply = ClientCalls.blockingUnaryCall(channel, Methods.REGISTER,
                CallOptions.DEFAULT.withWaitForReady().withDeadlineAfter(timeout.plus(SLACK).toMillis(),
                    TimeUnit.MILLISECONDS),
                registration.encode());
            PeerTable table = PeerTable.decode(reply);
            if (table.generation() != registration.generation() || table.nodes() != registration.nnodes()) {
                throw new CollectiveException("the rendezvous store at " + masterAddr + ":" + masterPort
                    + " answered with generation " + table.generation() + " of " + table.nodes() + " pods; node rank "
                    + registration.nodeRank() + " expected generation " + registration.generation() + " of "
                    + registration.nnodes());
            }
            return table;
        } catch (StatusRuntimeException e) {
            Status s = e.getStatus();
            String why = s.getCode() == Status.Code.DEADLINE_EXCEEDED && s.getDescription() != null
                && s.getDescription().startsWith("rendezvous") ? s.getDescription()
                : s.getCode() == Status.Code.DEADLINE_EXCEEDED
                ? "no rendezvous store answered within " + timeout.plus(SLACK).toSeconds()
                    + " s (is the node-rank-0 pod of generation " + registration.generation() + " up?)"
                : s.getCode() + ": " + s.getDescription();
            throw new CollectiveException("node rank " + registration.nodeRank() + " could not join world generation "
                + registration.generation() + " at MASTER_ADDR:MASTER_PORT=" + masterAddr + ":" + masterPort + ": "
                + why, e);
        } finally {
            channel.shutdownNow();
        }
    }
}
