package dev.ballast.agent.balancer;

import dev.ballast.agent.proto.BalancerGrpc;
import dev.ballast.agent.proto.BalancerMessage;
import dev.ballast.agent.proto.ErrorNotice;
import dev.ballast.agent.proto.SidecarMessage;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * The gRPC face of {@link BalancerCore}: every stream becomes a session; inbound messages are posted to the core's
 * loop thread, and the loop thread is the only one that writes to a stream.
 */
public final class BalancerService extends BalancerGrpc.BalancerImplBase {
    /**
     * Messages a stream may have in flight towards the loop. The balancer asks gRPC for the next message only after
     * the loop handled one, so a slow loop slows the sidecars down (their bounded outboxes absorb it) instead of
     * filling the balancer's heap.
     */
    static final int INBOUND_WINDOW = 16;

    private final BalancerCore core;
    private final Executor loop;

    public BalancerService(BalancerCore core, Executor loop) {
        this.core = core;
        this.loop = loop;
    }

    @Override
    public StreamObserver<SidecarMessage> connect(StreamObserver<BalancerMessage> responses) {
        ServerCallStreamObserver<BalancerMessage> out = (ServerCallStreamObserver<BalancerMessage>) responses;
        out.disableAutoRequest();
        out.request(INBOUND_WINDOW);
        SidecarSession session = new SidecarSession() {
            private boolean closed;

            @Override
            public void send(BalancerMessage m) {
                if (!closed && !out.isCancelled()) {
                    out.onNext(m);
                }
            }

            @Override
            public void close(ErrorNotice why) {
                if (closed || out.isCancelled()) {
                    return;
                }
                closed = true;
                out.onNext(BalancerMessage.newBuilder().setError(why).build());
                out.onError(statusOf(why).withDescription(why.getCode() + ": " + why.getMessage()).asRuntimeException());
            }
        };
        CompletableFuture<Long> id = CompletableFuture.supplyAsync(() -> core.open(session), loop);
        return new StreamObserver<>() {
            @Override
            public void onNext(SidecarMessage m) {
                loop.execute(() -> {
                    try {
                        core.onMessage(id.join(), m);
                    } finally {
                        if (!out.isCancelled()) {
                            out.request(1);
                        }
                    }
                });
            }

            @Override
            public void onError(Throwable t) {
                loop.execute(() -> core.onClose(id.join()));
            }

            @Override
            public void onCompleted() {
                loop.execute(() -> {
                    core.onClose(id.join());
                    if (!out.isCancelled()) {
                        try {
                            out.onCompleted();
                        } catch (IllegalStateException alreadyClosed) {
                            // the core refused the stream first
                        }
                    }
                });
            }
        };
    }

    static Status statusOf(ErrorNotice e) {
        return switch (e.getCode()) {
            case UNAUTHENTICATED -> Status.UNAUTHENTICATED;
            case WRONG_JOB -> Status.PERMISSION_DENIED;
            case STALE_GENERATION, NOT_IN_WORLD, INCOMPATIBLE_PROTOCOL -> Status.FAILED_PRECONDITION;
            case NO_WORLD -> Status.UNAVAILABLE;
            case BAD_REPORT, PROTOCOL_VIOLATION -> Status.INVALID_ARGUMENT;
            default -> Status.UNKNOWN;
        };
    }
}
