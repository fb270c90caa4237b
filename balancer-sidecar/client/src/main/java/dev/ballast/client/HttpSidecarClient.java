package dev.ballast.client;

import dev.ballast.planner.codec.PlanJson;
import dev.ballast.planner.json.Json;
import dev.ballast.planner.json.JsonFields;
import dev.ballast.planner.model.Plan;
import dev.ballast.planner.model.PlanVersion;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The trainer API over HTTP/JSON on localhost (BALLAST_SIDECAR_URL). {@link #report} only copies the counts into a
 * bounded queue; one background thread sends them. When the queue is full the oldest report is dropped and counted,
 * so the trainer is never blocked by a slow or absent sidecar.
 */
public final class HttpSidecarClient implements SidecarApi, AutoCloseable {
    /** Reports buffered in the trainer process (per client) before the oldest is dropped. */
    public static final int QUEUE_CAPACITY = 256;

    private final URI base;
    private final HttpClient http;
    private final Duration timeout;
    private final BlockingQueue<LoadReport> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final Thread sender;
    private volatile boolean closed;
    private volatile String lastError;

    public HttpSidecarClient(String baseUrl) {
        this(baseUrl, Duration.ofSeconds(2));
    }

    public HttpSidecarClient(String baseUrl, Duration timeout) {
        this.base = URI.create(baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl);
        this.timeout = timeout;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout).build();
        this.sender = new Thread(this::sendLoop, "ballast-report-sender");
        sender.setDaemon(true);
        sender.start();
    }

    /** From the environment the operator sets (BALLAST_SIDECAR_URL, default http://127.0.0.1:8470). */
    public static HttpSidecarClient fromEnv() {
        String url = System.getenv().getOrDefault("BALLAST_SIDECAR_URL", "http://127.0.0.1:8470");
        return new HttpSidecarClient(url);
    }

    @Override
    public void report(LoadReport report) {
        LoadReport copy = report.copy();
        while (!queue.offer(copy)) {
            if (queue.poll() != null) {
                dropped.incrementAndGet();
            }
        }
    }

    private void sendLoop() {
        while (!closed) {
            LoadReport r;
            try {
                r = queue.poll(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (r == null) {
                continue;
            }
            try {
                HttpResponse<String> resp = http.send(HttpRequest.newBuilder(base.resolve("/v1/loads"))
                        .timeout(timeout).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(ReportJson.encode(r))).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (resp.statusCode() / 100 == 2) {
                    sent.incrementAndGet();
                } else {
                    refused.incrementAndGet();
                    lastError = "HTTP " + resp.statusCode() + ": " + resp.body();
                }
            } catch (IOException e) {
                dropped.incrementAndGet();
                lastError = e.toString();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public PlanHeads heads(long generation, long step) {
        Map<String, Object> m = JsonFields.object(Json.parse(get("/v1/plans/heads?generation=" + generation + "&step=" + step)
                .body()), "heads");
        return new PlanHeads(version(m.get("newest")), version(m.get("oldest")));
    }

    @Override
    public Optional<Plan> plan(PlanVersion version) {
        HttpResponse<String> r = get("/v1/plans/" + version);
        if (r.statusCode() == 404) {
            return Optional.empty();
        }
        return Optional.of(PlanJson.decode(r.body()));
    }

    /** The live world (the operator's world.json as the sidecar last received it). */
    public String world() {
        return get("/v1/world").body();
    }

    private static PlanVersion version(Object o) {
        return o instanceof String s ? PlanVersions.parse(s) : null;
    }

    private HttpResponse<String> get(String path) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(base.resolve(path)).timeout(timeout).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200 && r.statusCode() != 404) {
                throw new IllegalStateException("sidecar " + path + ": HTTP " + r.statusCode() + ": " + r.body());
            }
            return r;
        } catch (IOException e) {
            throw new IllegalStateException("sidecar " + base + path + " unreachable: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted calling the sidecar", e);
        }
    }

    public long sentReports() {
        return sent.get();
    }

    public long droppedReports() {
        return dropped.get();
    }

    public long refusedReports() {
        return refused.get();
    }

    public String lastError() {
        return lastError;
    }

    @Override
    public void close() {
        closed = true;
        sender.interrupt();
    }
}
