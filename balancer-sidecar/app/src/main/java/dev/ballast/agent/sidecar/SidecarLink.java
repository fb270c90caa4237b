package dev.ballast.agent.sidecar;

import dev.ballast.agent.proto.BalancerGrpc;
import dev.ballast.agent.proto.BalancerMessage;
import dev.ballast.agent.proto.SidecarMessage;
import dev.ballast.agent.wire.Protocol;
import dev.ballast.agent.wire.StreamTls;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Logger;

/**
 * The sidecar's one long-lived stream to its balancer. One thread owns the sending side: it sends hello, drains
 * the report outbox while the stream is ready (gRPC flow control), sends resync requests, and reconnects with
 * exponential backoff and full jitter when the stream ends.
 */
public final class SidecarLink implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(SidecarLink.class.getName());
    static final long BACKOFF_MIN_MILLIS = 250;
    /** The longest wait before a reconnect (the balancer's grace for a rank it has not heard from builds on it). */
    public static final long BACKOFF_MAX_MILLIS = 15_000;
    /** How often the sidecar sends its health (report and plan latency, dropped reports) while connected. */
    static final long HEALTH_EVERY_NANOS = 5_000_000_000L;

    private final SidecarCore core;
    private final ManagedChannel channel;
    private final Thread thread;
    private final ConcurrentLinkedQueue<SidecarMessage> replies = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;
    private volatile boolean streamDone;
    private volatile long connects;

    /** @param trust the job's CA and the balancer's name; null: plaintext (no operator, e.g. the Python tests) */
    public SidecarLink(SidecarCore core, String balancerAddress, StreamTls.Trust trust) {
        this.core = core;
        this.channel = channel(balancerAddress, trust);
        this.thread = new Thread(this::run, "ballast-sidecar-link");
        thread.setDaemon(true);
    }

    /** The channel to the balancer: TLS checked against the job's CA and the balancer's name, or plaintext. */
    static ManagedChannel channel(String balancerAddress, StreamTls.Trust trust) {
        NettyChannelBuilder builder = NettyChannelBuilder.forTarget(balancerAddress)
                .maxInboundMessageSize(Protocol.MAX_GRPC_MESSAGE_BYTES).keepAliveTime(30, TimeUnit.SECONDS);
        if (trust == null) {
            builder.usePlaintext();
        } else {
            builder.sslContext(trust.clientContext()).overrideAuthority(trust.serverName());
        }
        return builder.build();
    }

    public void start() {
        thread.start();
    }

    /** Called after a report was queued, so the link sends it without waiting for its next poll. */
    public void wake() {
        LockSupport.unpark(thread);
    }

    public long connects() {
        return connects;
    }

    private void run() {
        long backoff = BACKOFF_MIN_MILLIS;
        while (!closed) {
            long started = System.nanoTime();
            try {
                stream();
            } catch (RuntimeException e) {
                LOG.warning("balancer stream failed: " + e);
            }
            core.onDisconnected();
            if (closed) {
                return;
            }
            // A stream that stayed up for a while resets the backoff; one that failed at once doubles it.
            backoff = System.nanoTime() - started > TimeUnit.SECONDS.toNanos(30) ? BACKOFF_MIN_MILLIS
                    : Math.min(BACKOFF_MAX_MILLIS, backoff * 2);
            long sleep = ThreadLocalRandom.current().nextLong(BACKOFF_MIN_MILLIS / 2, backoff + 1);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(sleep));
        }
    }

    private void stream() {
        streamDone = false;
        replies.clear();
        AtomicReference<ClientCallStreamObserver<SidecarMessage>> req = new AtomicReference<>();
        BalancerGrpc.newStub(channel).connect(new ClientResponseObserver<SidecarMessage, BalancerMessage>() {
            @Override
            public void beforeStart(ClientCallStreamObserver<SidecarMessage> r) {
                req.set(r);
                r.setOnReadyHandler(SidecarLink.this::wake);
            }

            @Override
            public void onNext(BalancerMessage m) {
                if (m.hasError() && m.getError().getFatal()) {
                    LOG.warning("balancer refused this sidecar: " + m.getError().getCode() + ": " + m.getError().getMessage());
                }
                replies.addAll(core.onBalancerMessage(m));
                wake();
            }

            @Override
            public void onError(Throwable t) {
                LOG.fine("balancer stream ended: " + t);
                streamDone = true;
                wake();
            }

            @Override
            public void onCompleted() {
                streamDone = true;
                wake();
            }
        });
        ClientCallStreamObserver<SidecarMessage> out = req.get();
        connects++;
        out.onNext(core.hello());
        for (SidecarMessage m : core.onConnected()) {
            out.onNext(m);
        }
        long lastTick = System.nanoTime();
        long lastHealth = lastTick;
        while (!closed && !streamDone) {
            SidecarMessage r;
            while ((r = replies.poll()) != null) {
                out.onNext(r);
            }
            while (out.isReady()) {
                SidecarMessage m = core.pollOutbound();
                if (m == null) {
                    break;
                }
                out.onNext(m);
            }
            if (System.nanoTime() - lastTick > TimeUnit.SECONDS.toNanos(1)) {
                lastTick = System.nanoTime();
                replies.addAll(core.tick());
            }
            if (System.nanoTime() - lastHealth > HEALTH_EVERY_NANOS) {
                lastHealth = System.nanoTime();
                SidecarMessage h = core.healthMessage();
                if (h != null) {
                    out.onNext(h);
                }
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        if (!streamDone) {
            out.onCompleted();
        }
    }

    @Override
    public void close() {
        closed = true;
        wake();
        channel.shutdownNow();
    }
}
