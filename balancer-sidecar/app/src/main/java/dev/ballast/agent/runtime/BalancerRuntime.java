package dev.ballast.agent.runtime;

import dev.ballast.agent.AgentEnv;
import dev.ballast.agent.balancer.BalancerCore;
import dev.ballast.agent.balancer.BalancerService;
import dev.ballast.agent.balancer.BearerToken;
import dev.ballast.agent.balancer.FileSources;
import dev.ballast.agent.balancer.FileStatusStore;
import dev.ballast.agent.balancer.HistoryStore;
import dev.ballast.agent.balancer.StatusStore;
import dev.ballast.agent.dashboard.AccessReview;
import dev.ballast.agent.dashboard.ApiServerAccessReview;
import dev.ballast.agent.dashboard.ViewerGate;
import dev.ballast.agent.kube.KubeHistoryStore;
import dev.ballast.agent.kube.KubeSources;
import dev.ballast.agent.kube.KubeStatusStore;
import dev.ballast.agent.wire.StreamTls;
import dev.ballast.agent.wire.Protocol;
import dev.ballast.contracts.env.ProcessEnv;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;

import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Wires the balancer role: one loop thread owns {@link BalancerCore}; a planner thread runs planning; the gRPC
 * server (port 8471) feeds sessions; the world document comes from the cluster (or a file), status goes back to the
 * TrainingJob (or a file).
 */
public final class BalancerRuntime implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(BalancerRuntime.class.getName());

    /** The core's thread: a plain FIFO executor (cheaper per message than a scheduled one). */
    private final ExecutorService loop = Executors.newSingleThreadExecutor(r -> daemon(r, "ballast-balancer-loop"));
    /** Only posts periodic work (tick, file polling) into the loop. */
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "ballast-balancer-timer"));
    private final ExecutorService plannerThread = Executors.newSingleThreadExecutor(r -> daemon(r, "ballast-planner"));
    private BalancerCore core;
    private Server server;
    private KubeSources kubeSources;
    private volatile boolean grpcUp;
    private BearerToken httpToken;
    private ViewerGate viewerGate;

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** @param registry where the balancer's metrics go (docs/metrics.md) */
    public void start(Supplier<KubernetesClient> kube, MeterRegistry registry) {
        String job = AgentEnv.require(ProcessEnv.JOB);
        String ns = AgentEnv.require(ProcessEnv.NAMESPACE);
        BalancerMetrics metrics = new BalancerMetrics(registry, ns, job);
        String token = AgentEnv.require(ProcessEnv.TOKEN);
        httpToken = new BearerToken(token, job);
        String worldFile = AgentEnv.get(ProcessEnv.WORLD_FILE, null);
        viewerGate = new ViewerGate(viewerReview(kube, worldFile != null), ns, job, System::nanoTime);
        String statusFile = AgentEnv.get(ProcessEnv.STATUS_FILE, null);
        StatusStore status = statusFile != null ? new FileStatusStore(Path.of(statusFile))
                : new KubeStatusStore(kube.get(), ns, job);
        HistoryStore history = statusFile != null ? HistoryStore.NONE : new KubeHistoryStore(kube.get(), ns, job);
        BalancerCore.PlanRunner runner = (jobFn, done, failed) -> plannerThread.execute(() -> {
            try {
                BalancerCore.PlanResult r = jobFn.call();
                loop.execute(() -> done.accept(r));
            } catch (Exception e) {
                loop.execute(() -> failed.accept(e));
            }
        });
        String id = UUID.randomUUID().toString();
        // construction reads the persisted plan sequence and load history from the API server: slow on a loaded node
        core = call(() -> new BalancerCore(job, ns, token, status, history, runner, System::nanoTime, id), 60);
        if (worldFile != null) {
            FileSources files = new FileSources(Path.of(worldFile));
            timer.scheduleWithFixedDelay(() -> loop.execute(() -> files.poll(core::onWorld)), 0, 1, TimeUnit.SECONDS);
        } else {
            kubeSources = new KubeSources();
            kubeSources.start(kube.get(), ns, AgentEnv.get(ProcessEnv.WORLD_CONFIGMAP, job + "-world"),
                    w -> loop.execute(() -> core.onWorld(w)));
        }
        timer.scheduleWithFixedDelay(() -> loop.execute(() -> {
            try {
                core.tick();
                metrics.update(core.metricsState());
            } catch (RuntimeException e) {
                LOG.warning("balancer tick failed: " + e);
            }
        }), 1, 1, TimeUnit.SECONDS);
        int port = AgentEnv.intValue(ProcessEnv.GRPC_PORT_VAR, ProcessEnv.BALANCER_GRPC_PORT);
        String bind = AgentEnv.bindAddress();
        String cert = AgentEnv.get(ProcessEnv.TLS_CERT, null);
        String key = AgentEnv.get(ProcessEnv.TLS_KEY, null);
        try {
            NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress(bind, port));
            if (cert != null && key != null) {
                builder.sslContext(StreamTls.server(cert, key));
            } else {
                LOG.warning("no " + ProcessEnv.TLS_CERT + "/" + ProcessEnv.TLS_KEY + ": the sidecars' stream is plaintext"
                        + " (the operator always sets them; this is for runs without a cluster)");
            }
            server = builder
                    .addService(new BalancerService(core, loop))
                    .maxInboundMessageSize(Protocol.MAX_GRPC_MESSAGE_BYTES)
                    .permitKeepAliveTime(10, TimeUnit.SECONDS)
                    .build().start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen for sidecars on " + bind + ":" + port, e);
        }
        grpcUp = true;
        LOG.info("balancer for " + ns + "/" + job + " listening for sidecars on " + bind + ":" + port
                + (cert != null && key != null ? " with TLS" : " in plaintext") + " (id " + id + ")");
    }

    /** Runs a read on the loop thread (the core is single-threaded) and waits for it. */
    public <T> T call(Callable<T> c) {
        return call(c, 5);
    }

    private <T> T call(Callable<T> c, int timeoutSeconds) {
        try {
            return loop.submit(c).get(timeoutSeconds, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("balancer loop did not answer within " + timeoutSeconds + "s: " + e, e);
        }
    }

    public BalancerCore core() {
        return core;
    }

    /** What the HTTP API asks of a request: the job's token. */
    public BearerToken httpToken() {
        return httpToken;
    }

    /** Who may see the job's page (docs/dashboard.md). */
    public ViewerGate viewerGate() {
        return viewerGate;
    }

    /**
     * People are checked by the API server the balancer talks to; without a cluster (a world file) there is none, and
     * the page refuses everyone with that reason.
     */
    private static AccessReview viewerReview(Supplier<KubernetesClient> kube, boolean noCluster) {
        if (noCluster) {
            return (token, namespace, job) -> {
                throw new IllegalStateException("this balancer runs without a cluster (world file): no one can sign in");
            };
        }
        return ApiServerAccessReview.of(kube.get().getConfiguration());
    }

    public boolean ready() {
        return grpcUp && core != null && core.ready();
    }

    @Override
    public void close() {
        if (server != null) {
            server.shutdownNow();
        }
        if (core != null) {
            try {
                call(() -> {
                    core.persistHistory();
                    return null;
                }, 5);
            } catch (RuntimeException e) {
                LOG.warning("could not persist the load history at shutdown: " + e.getMessage());
            }
        }
        if (kubeSources != null) {
            kubeSources.close();
        }
        timer.shutdownNow();
        loop.shutdownNow();
        plannerThread.shutdownNow();
    }
}
