package dev.ballast.client;

import dev.ballast.contracts.plan.PlanHeads;
import dev.ballast.contracts.plan.PlanHeadsJson;
import dev.ballast.contracts.plan.PlanVersion;
import dev.ballast.planner.codec.PlanJson;
import dev.ballast.planner.model.Plan;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The trainer API over HTTP/JSON on localhost (BALLAST_SIDECAR_URL).
 *
 * <p><b>The report call</b> ({@link #report(long, long, int, int, long[][], PlanVersion, StepTiming)}) checks the counts and
 * copies them into a preallocated buffer of a {@link ReportRing} of {@value #QUEUE_CAPACITY} reports (the buffer
 * the sender freed last, so the copy lands in memory that is still cached), then returns.
 * In steady state it allocates nothing and makes no system call: it does not wake the sender. Several rank threads
 * may share one client. When the ring is full the oldest unsent report is dropped and counted, so a slow or absent
 * sidecar never blocks the trainer.
 *
 * <p><b>The sender</b> is one daemon thread that polls the ring. After it sent something it looks again within
 * {@value #MIN_PARK_MICROS} µs, and each empty look doubles the pause up to {@value #MAX_PARK_MILLIS} ms, so an idle
 * client wakes about 100 times a second (negligible CPU). A report therefore starts on its way at most
 * {@value #MAX_PARK_MILLIS} ms (plus the OS timer slack) after the call, behind the reports queued before it. It
 * encodes the JSON into a reused byte buffer and POSTs it; a failed POST (sidecar unreachable) drops that report and
 * counts it. {@link #close()} sends what is still queued before it stops the sender.
 */
public final class HttpSidecarClient implements SidecarApi, AutoCloseable {
    /** Reports buffered in the trainer process (per client) before the oldest is dropped. */
    public static final int QUEUE_CAPACITY = 256;
    static final long MIN_PARK_MICROS = 100;
    static final long MAX_PARK_MILLIS = 10;

    private final URI base;
    private final URI loads;
    private final HttpClient http;
    private final Duration timeout;
    private final ReportRing ring = new ReportRing(QUEUE_CAPACITY);
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final Thread sender;
    private volatile boolean closed;
    private volatile String lastError;

    public HttpSidecarClient(String baseUrl) {
        this(baseUrl, Duration.ofSeconds(2));
    }

    public HttpSidecarClient(String baseUrl, Duration timeout) {
        this.base = URI.create(baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl);
        this.loads = base.resolve("/v1/loads");
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
    public void report(StepLoads report) {
        report(report.worldGeneration(), report.step(), report.gpuRank(), report.firstLayer(), report.counts(),
                report.adopted(), report.timing());
    }

    /**
     * Queues one GPU's counts for one step ({@code counts[i][e]}: layer {@code firstLayer + i}, expert e); the caller
     * may reuse {@code counts} as soon as this returns. Bad input (a negative count, ragged rows, a negative field,
     * more than {@link StepLoads#MAX_COUNTS} counts) throws IllegalArgumentException naming it, and nothing is queued.
     */
    @Override
    public void report(long worldGeneration, long step, int gpuRank, int firstLayer, long[][] counts, PlanVersion adopted,
                       StepTiming timing) {
        int experts = StepLoads.check(worldGeneration, step, gpuRank, firstLayer, counts);
        ring.offer(worldGeneration, step, gpuRank, firstLayer, counts, experts, adopted, timing);
    }

    private void sendLoop() {
        FlatReport r = new FlatReport();
        AsciiBuffer body = new AsciiBuffer();
        long park = MIN_PARK_MICROS * 1_000;
        while (true) {
            if (!ring.poll(r)) {
                if (closed) {
                    return; // every report queued before close() has been sent (or failed and been counted)
                }
                LockSupport.parkNanos(park);
                park = Math.min(MAX_PARK_MILLIS * 1_000_000, park * 2);
                continue;
            }
            park = MIN_PARK_MICROS * 1_000;
            ReportJson.encode(r, body);
            try {
                HttpResponse<String> resp = http.send(HttpRequest.newBuilder(loads)
                        .timeout(timeout).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body.bytes(), 0, body.length())).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (resp.statusCode() / 100 == 2) {
                    sent.incrementAndGet();
                } else {
                    refused.incrementAndGet();
                    lastError = "HTTP " + resp.statusCode() + ": " + resp.body();
                }
            } catch (IOException e) {
                failed.incrementAndGet();
                lastError = e.toString();
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public PlanHeads heads(long generation, long step) {
        return PlanHeadsJson.decode(get("/v1/plans/heads?generation=" + generation + "&step=" + step).body());
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

    /** Reports that never reached the sidecar: dropped from the full queue, or their POST failed. */
    public long droppedReports() {
        return ring.dropped() + failed.get();
    }

    /** Reports waiting in the queue (approximate while ranks report). */
    public int queuedReports() {
        return ring.size();
    }

    public long refusedReports() {
        return refused.get();
    }

    public String lastError() {
        return lastError;
    }

    /**
     * Sends what is still queued (a trainer's last steps), waiting up to the client's timeout for it, then stops the
     * sender; reports it could not send by then are given up.
     */
    @Override
    public void close() {
        closed = true;
        LockSupport.unpark(sender);
        try {
            sender.join(timeout.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sender.interrupt();
    }
}
