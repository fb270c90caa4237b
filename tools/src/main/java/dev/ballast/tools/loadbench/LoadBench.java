package dev.ballast.tools.loadbench;

import dev.ballast.agent.proto.AdoptionReport;
import dev.ballast.agent.proto.BalancerGrpc;
import dev.ballast.agent.proto.BalancerMessage;
import dev.ballast.agent.proto.Hello;
import dev.ballast.agent.proto.LoadReport;
import dev.ballast.agent.proto.PlanVersion;
import dev.ballast.agent.proto.SidecarMessage;
import dev.ballast.agent.wire.Protocol;
import dev.ballast.client.HttpSidecarClient;
import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonFields;
import dev.ballast.contracts.json.JsonWriter;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Load generator for the balancer (docs/BENCHMARKS.md, "Data path"): simulates every sidecar of a world over real
 * gRPC streams (hello, one report per GPU per interval, adoption reports), receives the plans, and measures ingest,
 * plan fan-out latency (publish → receipt at each sidecar), plan bytes, both processes' CPU and the balancer's heap.
 * It also times the trainer-side {@link HttpSidecarClient#report} call ({@link ReportCallTimer}). Run by {@code bin/ballast loadbench}.
 */
public final class LoadBench {
    /** Distinct per-GPU rows of one step: GPU rank r reports row r % ROW_VARIANTS. */
    public static final int ROW_VARIANTS = 16;
    /** Steps between shifts of the hot set by one rank. */
    public static final int DRIFT_EVERY_STEPS = 200;

    private LoadBench() {
    }

    /**
     * One GPU's counts for a step, [layer * experts + expert]: 8,192 tokens × top-8 spread Zipf-like (weight 1/(rank+1))
     * over a popularity order that differs per layer and {@code variant} and shifts by one every
     * {@link #DRIFT_EVERY_STEPS} steps.
     */
    public static long[] zipfRow(int layers, int experts, int variant, long step) {
        long[] c = new long[layers * experts];
        for (int l = 0; l < layers; l++) {
            double[] w = new double[experts];
            double sum = 0;
            for (int e = 0; e < experts; e++) {
                int r = (int) ((e + l * 7 + variant + step / DRIFT_EVERY_STEPS) % experts);
                w[e] = 1.0 / (r + 1);
                sum += w[e];
            }
            long total = 8192L * 8;
            for (int e = 0; e < experts; e++) {
                c[l * experts + e] = Math.round(total * w[e] / sum);
            }
        }
        return c;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new LinkedHashMap<>(Map.of("pods", "32", "gpus", "8", "layers", "60", "experts", "64",
                "interval-ms", "100", "duration-s", "60", "warmup-s", "60", "grpc", "127.0.0.1:8471",
                "http", "http://127.0.0.1:8472", "token", "bench-token"));
        a.put("job", "bench");
        a.put("namespace", "default");
        a.put("balancer-pid", "0");
        a.put("json", "");
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length || !a.containsKey(args[i].substring(2))) {
                throw new IllegalArgumentException("usage: LoadBench [--" + String.join(" V] [--", a.keySet()) + " V]; bad: " + args[i]);
            }
            a.put(args[i].substring(2), args[++i]);
        }
        new Run(a).run();
    }

    static final class Run {
        final int pods;
        final int gpus;
        final int layers;
        final int experts;
        final int intervalMs;
        final int durationS;
        final int warmupS;
        final Map<String, String> a;
        final List<Long> fanOutNanos = new ArrayList<>();
        final Map<String, long[]> firstLast = new ConcurrentHashMap<>(); // plan -> {minRecv, maxRecv, published, receipts}
        final AtomicLong reportsSent = new AtomicLong();
        final AtomicLong planMessages = new AtomicLong();
        final AtomicLong planBytes = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong droppedAtSidecar = new AtomicLong();
        volatile boolean measuring;
        volatile boolean stop;

        Run(Map<String, String> a) {
            this.a = a;
            pods = Integer.parseInt(a.get("pods"));
            gpus = Integer.parseInt(a.get("gpus"));
            layers = Integer.parseInt(a.get("layers"));
            experts = Integer.parseInt(a.get("experts"));
            intervalMs = Integer.parseInt(a.get("interval-ms"));
            durationS = Integer.parseInt(a.get("duration-s"));
            warmupS = Integer.parseInt(a.get("warmup-s"));
        }

        final class Sim {
            final int pod;
            final ManagedChannel channel;
            ClientCallStreamObserver<SidecarMessage> out;
            volatile PlanVersion newest;
            PlanVersion reported;
            /** Like the real sidecar's outbox: bounded, drained while the stream is ready, oldest dropped when full. */
            final java.util.ArrayDeque<SidecarMessage> outbox = new java.util.ArrayDeque<>();

            Sim(int pod) {
                this.pod = pod;
                channel = NettyChannelBuilder.forTarget(a.get("grpc")).usePlaintext()
                        .maxInboundMessageSize(Protocol.MAX_GRPC_MESSAGE_BYTES).build();
            }

            void open() {
                BalancerGrpc.newStub(channel).connect(new ClientResponseObserver<SidecarMessage, BalancerMessage>() {
                    @Override
                    public void beforeStart(ClientCallStreamObserver<SidecarMessage> r) {
                        out = r;
                        r.setOnReadyHandler(Sim.this::drain);
                    }

                    @Override
                    public void onNext(BalancerMessage m) {
                        if (m.hasPlan()) {
                            long now = nowNanos();
                            long pub = m.getPlan().getPublishedUnixNanos();
                            String key = m.getPlan().getVersion().getWorldGeneration() + "." + m.getPlan().getVersion().getSequence();
                            if (measuring) {
                                synchronized (fanOutNanos) {
                                    fanOutNanos.add(now - pub);
                                }
                                planMessages.incrementAndGet();
                                planBytes.addAndGet(m.getSerializedSize());
                                firstLast.compute(key, (k, v) -> v == null ? new long[] {now, now, pub, 1}
                                        : new long[] {Math.min(v[0], now), Math.max(v[1], now), pub, v[3] + 1});
                            }
                            newest = m.getPlan().getVersion();
                        } else if (m.hasError()) {
                            errors.incrementAndGet();
                            System.err.println("pod " + pod + ": " + m.getError().getCode() + ": " + m.getError().getMessage());
                        }
                    }

                    @Override
                    public void onError(Throwable t) {
                        if (!stop) {
                            System.err.println("pod " + pod + " stream failed: " + t);
                        }
                    }

                    @Override
                    public void onCompleted() {
                    }
                });
                out.onNext(SidecarMessage.newBuilder().setHello(Hello.newBuilder().setProtocolVersion(Protocol.VERSION)
                        .setJob(a.get("job")).setNamespace(a.get("namespace")).setToken(a.get("token"))
                        .setPodIndex(pod).setNodeRank(pod).setWorldGeneration(1).setPodName("bench-worker-" + pod)).build());
            }

            synchronized void enqueue(SidecarMessage m) {
                if (outbox.size() == 512 && outbox.pollFirst().hasReport()) {
                    droppedAtSidecar.incrementAndGet();
                }
                outbox.addLast(m);
            }

            synchronized void drain() {
                while (!stop && out.isReady() && !outbox.isEmpty()) {
                    out.onNext(outbox.pollFirst());
                }
            }

            /** One step: a report per GPU of the pod, and adoption of the newest plan received (all ranks at once). */
            void step(long step, List<LoadReport> rows) {
                PlanVersion n = newest;
                synchronized (this) {
                    if (n != null && !n.equals(reported)) {
                        for (int g = 0; g < gpus; g++) {
                            enqueue(SidecarMessage.newBuilder().setAdoption(AdoptionReport.newBuilder()
                                    .setGpuRank(pod * gpus + g).setWorldGeneration(1).setStep(step).setAdopted(n)).build());
                        }
                        reported = n;
                    }
                    for (int g = 0; g < gpus; g++) {
                        LoadReport r = rows.get((pod * gpus + g) % rows.size()).toBuilder().setStep(step)
                                .setGpuRank(pod * gpus + g).build();
                        enqueue(SidecarMessage.newBuilder().setReport(r).build());
                        reportsSent.incrementAndGet();
                    }
                }
                drain();
            }
        }

        /** Drifting Zipf-like per-GPU counts (8,192 tokens × top-8 per GPU per layer), precomputed per step phase. */
        List<LoadReport> rows(long step) {
            List<LoadReport> out = new ArrayList<>();
            for (int v = 0; v < ROW_VARIANTS; v++) {
                long[] c = zipfRow(layers, experts, v, step);
                LoadReport.Builder b = LoadReport.newBuilder().setWorldGeneration(1).setFirstLayer(0).setLayers(layers)
                        .setExperts(experts);
                for (long x : c) {
                    b.addCounts(x);
                }
                out.add(b.build());
            }
            return out;
        }

        void run() throws Exception {
            long balancerPid = Long.parseLong(a.get("balancer-pid"));
            List<Sim> sims = new ArrayList<>();
            for (int p = 0; p < pods; p++) {
                Sim s = new Sim(p);
                s.open();
                sims.add(s);
            }
            ReportCallTimer reportTimer = new ReportCallTimer(layers, experts);
            ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
            AtomicLong stepCounter = new AtomicLong();
            @SuppressWarnings("unchecked")
            List<LoadReport>[] rowCache = new List[1];
            ticker.scheduleAtFixedRate(() -> {
                long step = stepCounter.getAndIncrement();
                if (step % DRIFT_EVERY_STEPS == 0 || rowCache[0] == null) {
                    rowCache[0] = rows(step);
                }
                for (Sim s : sims) {
                    s.step(step, rowCache[0]);
                }
                reportTimer.tick(step, measuring);
            }, 0, intervalMs, TimeUnit.MILLISECONDS);
            // The warm-up also lets the balancer's JIT compile its planner: on the core it shares with the ingest path
            // that takes about a minute of plans (docs/benchmarks-data-path.md, run 17), so plans made then are
            // reported apart from the window's.
            System.err.printf("loadbench: %d sidecars streaming; warming up for %d s%n", pods, warmupS);
            PlanTimes warmupPlans = new PlanTimes(balancerLong("plansPublished"));
            for (int s = 0; s < warmupS; s++) {
                Thread.sleep(1000);
                warmupPlans.poll(JsonFields.object(Json.parse(balancerStatus()), "status"));
            }
            long balancerCpu0 = cpuTicks(balancerPid);
            long selfCpu0 = cpuTicks(ProcessHandle.current().pid());
            long reports0 = reportsSent.get();
            long accepted0 = balancerLong("reportsAccepted");
            long published0 = balancerLong("plansPublished");
            long t0 = System.nanoTime();
            measuring = true;
            System.err.printf("loadbench: measuring for %d s (%d plans made while warming up)%n", durationS,
                    warmupPlans.cpuMillis.size());
            long maxHeap = 0;
            long maxLive = 0;
            // The balancer's planning call, wall time and its thread's CPU time, of each plan it published in the
            // window (status shows the last): wall above CPU is time spent waiting for the core the balancer shares.
            PlanTimes plans = new PlanTimes(published0);
            for (int s = 1; s <= durationS; s++) {
                Thread.sleep(1000);
                Map<String, Object> st = JsonFields.object(Json.parse(balancerStatus()), "status");
                maxHeap = Math.max(maxHeap, st.get("heapUsedBytes") instanceof Long l ? l : 0);
                maxLive = Math.max(maxLive, st.get("heapLiveBytes") instanceof Long l ? l : 0);
                plans.poll(st);
                if (s % 20 == 0 && s < durationS) {
                    System.err.printf("loadbench: %d of %d s measured, %d plans%n", s, durationS, plans.cpuMillis.size());
                }
            }
            double[] planMs = sorted(plans.wallMillis);
            double[] planCpuMs = sorted(plans.cpuMillis);
            double[] warmupCpuMs = sorted(warmupPlans.cpuMillis);
            measuring = false;
            double secs = (System.nanoTime() - t0) / 1e9;
            long balancerCpu1 = cpuTicks(balancerPid);
            long selfCpu1 = cpuTicks(ProcessHandle.current().pid());
            long reports = reportsSent.get() - reports0;
            long acceptedInWindow = balancerLong("reportsAccepted") - accepted0;
            long published = balancerLong("plansPublished") - published0;
            // Stop sending, then wait until the balancer has taken everything: sent and accepted must match.
            System.err.println("loadbench: stopped sending; waiting until the balancer has taken every report");
            ticker.shutdown();
            ticker.awaitTermination(10, TimeUnit.SECONDS);
            long drainStart = System.nanoTime();
            long acceptedTotal = balancerLong("reportsAccepted");
            for (int quiet = 0; quiet < 3 && System.nanoTime() - drainStart < 120e9; ) {
                Thread.sleep(1100);
                long x = balancerLong("reportsAccepted");
                quiet = x == acceptedTotal ? quiet + 1 : 0;
                acceptedTotal = x;
            }
            double drainSeconds = (System.nanoTime() - drainStart) / 1e9 - 3.3;
            long sentTotal = reportsSent.get();
            String status = balancerStatus();
            stop = true;
            for (Sim s : sims) {
                s.channel.shutdownNow();
            }
            // The cadence: 8 ranks of one pod, one 60x64 report each per 100 ms step; then a 10x faster one.
            System.err.println("loadbench: timing the Java client's report call alone");
            ReportCallTimer.Quiet quiet = reportTimer.quietPhase(8, 30, 300, 100);
            ReportCallTimer.Quiet quick = reportTimer.quietPhase(8, 50, 500, 10);
            for (Sim s : sims) {
                s.channel.shutdownNow();
            }
            long[] f;
            synchronized (fanOutNanos) {
                f = fanOutNanos.stream().mapToLong(Long::longValue).sorted().toArray();
            }
            long[] spread = firstLast.values().stream().filter(v -> v[3] == pods).mapToLong(v -> v[1] - v[2]).sorted().toArray();
            double hz = 100.0; // USER_HZ on Linux
            JsonWriter w = new JsonWriter().beginObject()
                    .field("pods", pods).field("gpusPerPod", gpus).field("layers", layers).field("experts", experts)
                    .field("intervalMs", intervalMs).field("seconds", secs)
                    .field("offeredReportsPerSecond", reports / secs)
                    .field("ingestReportsPerSecond", acceptedInWindow / secs)
                    .field("ingestCountsPerSecond", acceptedInWindow * (double) layers * experts / secs)
                    .field("reportsSentTotal", sentTotal).field("reportsAcceptedTotal", acceptedTotal)
                    .field("reportsDroppedAtSidecarOutbox", droppedAtSidecar.get())
                    .field("reportsLost", sentTotal - droppedAtSidecar.get() - acceptedTotal)
                    .field("drainSecondsAfterStop", Math.max(0, drainSeconds))
                    .field("plansPublished", published).field("planMessagesReceived", planMessages.get())
                    .field("planMillisSampled", planMs.length)
                    .field("planMillisP50", middle(planMs)).field("planMillisMax", last(planMs))
                    .field("planCpuMillisP50", middle(planCpuMs)).field("planCpuMillisMax", last(planCpuMs))
                    .field("warmupPlans", warmupCpuMs.length)
                    .field("warmupPlanCpuMillisP50", middle(warmupCpuMs)).field("warmupPlanCpuMillisMax", last(warmupCpuMs))
                    .field("planBytesPerSidecarPerPlan", planMessages.get() == 0 ? 0 : planBytes.get() / (double) planMessages.get())
                    .field("fanOutMillisP50", pct(f, 0.50) / 1e6).field("fanOutMillisP99", pct(f, 0.99) / 1e6)
                    .field("fanOutMillisMax", f.length == 0 ? 0 : f[f.length - 1] / 1e6)
                    .field("allSidecarsMillisP50", pct(spread, 0.50) / 1e6).field("allSidecarsMillisP99", pct(spread, 0.99) / 1e6)
                    .field("balancerCpuCores", balancerPid == 0 ? -1 : (balancerCpu1 - balancerCpu0) / hz / secs)
                    .field("generatorCpuCores", (selfCpu1 - selfCpu0) / hz / secs)
                    .field("balancerHeapMaxBytes", maxHeap).field("balancerHeapLiveMaxBytes", maxLive)
                    .field("reportCallMicrosP50", reportTimer.pct(0.50) / 1e3)
                    .field("reportCallMicrosP99", reportTimer.pct(0.99) / 1e3)
                    .field("reportCallMicrosMax", reportTimer.pct(1.0) / 1e3)
                    .field("reportCalls", reportTimer.count())
                    .field("streamErrors", errors.get());
            w.name("planCpuMillis");
            plans.writeCpu(w);
            w.name("warmupPlanCpuMillis");
            warmupPlans.writeCpu(w);
            quiet.write(w, "reportCallQuiet");
            quick.write(w, "reportCallQuick");
            w.field("balancerStatus", status);
            String json = w.endObject().toString();
            System.out.println(json);
            if (!a.get("json").isEmpty()) {
                Files.writeString(Path.of(a.get("json")), json + "\n");
            }
            reportTimer.close();
            System.exit(0);
        }

        /**
         * The balancer's planning call of each plan it publishes, as its status shows the newest: wall time and its
         * thread's CPU time, in the order published. Polled once a second; a plan published and replaced within one
         * second is missed (the balancer plans every 5 s here).
         */
        static final class PlanTimes {
            final List<Double> wallMillis = new ArrayList<>();
            final List<Double> cpuMillis = new ArrayList<>();
            private long seen;

            PlanTimes(long publishedBefore) {
                seen = publishedBefore;
            }

            void poll(Map<String, Object> status) {
                long now = status.get("plansPublished") instanceof Long l ? l : 0;
                if (now > seen && status.get("lastPlanMillis") instanceof Number ms
                        && status.get("lastPlanCpuMillis") instanceof Number cpu) {
                    wallMillis.add(ms.doubleValue());
                    cpuMillis.add(cpu.doubleValue());
                }
                seen = now;
            }

            void writeCpu(JsonWriter w) {
                w.beginArray();
                for (double x : cpuMillis) {
                    w.value(Math.round(x * 100) / 100.0);
                }
                w.endArray();
            }
        }

        private static double[] sorted(List<Double> xs) {
            return xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        }

        /** The element at half the length of a sorted array (the upper median), 0 when empty. */
        private static double middle(double[] sorted) {
            return sorted.length == 0 ? 0 : sorted[sorted.length / 2];
        }

        private static double last(double[] sorted) {
            return sorted.length == 0 ? 0 : sorted[sorted.length - 1];
        }

        static long pct(long[] sorted, double p) {
            if (sorted.length == 0) {
                return 0;
            }
            int i = (int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1);
            return sorted[Math.max(0, i)];
        }

        long balancerLong(String field) {
            Object v = JsonFields.object(Json.parse(balancerStatus()), "status").get(field);
            return v instanceof Long l ? l : 0;
        }

        String balancerStatus() {
            try {
                return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(a.get("http") + "/v1/status"))
                        .header("Authorization", "Bearer " + a.get("token")).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("balancer status unavailable: " + e, e);
            }
        }

        static long cpuTicks(long pid) {
            if (pid == 0) {
                return 0;
            }
            try {
                String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime + stime
            } catch (IOException e) {
                return 0;
            }
        }

        static long nowNanos() {
            Instant i = Instant.now();
            return i.getEpochSecond() * 1_000_000_000L + i.getNano();
        }
    }

    /**
     * Times the trainer-side report call, exactly what a rank calls once per step:
     * {@code client.report(generation, step, gpuRank, firstLayer, counts, adopted)} with a full 60×64 report, one
     * client shared by the pod's 8 ranks (as in the reference trainer, whose local ranks share one JVM). The client
     * sends to a local sink in this JVM (the call itself never waits for the sidecar). During the load the ticker
     * thread makes the 8 calls each interval; the quiet phases use one thread per rank.
     */
    static final class ReportCallTimer implements AutoCloseable {
        final HttpServer sink;
        final HttpSidecarClient client;
        final long[][] counts;
        final dev.ballast.contracts.plan.PlanVersion adopted = new dev.ballast.contracts.plan.PlanVersion(1, 1);
        final long[] samples = new long[1 << 20];
        int n;

        ReportCallTimer(int layers, int experts) throws IOException {
            sink = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            sink.createContext("/", ex -> {
                ex.getRequestBody().readAllBytes();
                ex.sendResponseHeaders(202, -1);
                ex.close();
            });
            sink.start();
            client = new HttpSidecarClient("http://127.0.0.1:" + sink.getAddress().getPort());
            counts = new long[layers][experts];
            for (long[] row : counts) {
                Arrays.fill(row, 1024);
            }
        }

        void tick(long step, boolean measure) {
            for (int r = 0; r < 8; r++) {
                long t0 = System.nanoTime();
                client.report(1, step, r, 0, counts, adopted);
                long d = System.nanoTime() - t0;
                if (measure && n < samples.length) {
                    samples[n++] = d;
                }
            }
        }

        /** One quiet phase's samples (sorted, nanoseconds) and what the client did meanwhile. */
        record Quiet(int everyMs, long[] wall, long[] cpu, long allocatedBytes, long sent, long dropped) {
            void write(JsonWriter w, String prefix) {
                w.field(prefix + "EveryMs", everyMs).field(prefix + "Calls", wall.length)
                        .field(prefix + "MicrosP50", Run.pct(wall, 0.50) / 1e3)
                        .field(prefix + "MicrosP99", Run.pct(wall, 0.99) / 1e3)
                        .field(prefix + "MicrosP999", Run.pct(wall, 0.999) / 1e3)
                        .field(prefix + "MicrosMax", Run.pct(wall, 1.0) / 1e3)
                        .field(prefix + "CallsOver50Micros", Arrays.stream(wall).filter(x -> x > 50_000).count())
                        .field(prefix + "CpuMicrosP50", Run.pct(cpu, 0.50) / 1e3)
                        .field(prefix + "CpuMicrosP99", Run.pct(cpu, 0.99) / 1e3)
                        .field(prefix + "AllocatedBytes", allocatedBytes)
                        .field(prefix + "ReportsSent", sent).field(prefix + "ReportsDropped", dropped);
            }
        }

        /**
         * The call alone, with no load generator running: {@code ranks} threads report at the same step boundaries
         * ({@code everyMs} apart, absolute deadlines, as ranks of one pod do after the step's all-reduce); the first
         * {@code warmup} calls of each rank are not counted. Each rank writes its own counts for the step just before
         * the call, outside the timed window, as a trainer that has just computed them. Wall time is
         * {@code System.nanoTime} around the call only; thread CPU and allocated bytes are read outside that window.
         */
        Quiet quietPhase(int ranks, int warmup, int calls, int everyMs) throws InterruptedException {
            long[][] wall = new long[ranks][calls];
            long[][] cpu = new long[ranks][calls];
            long[] allocated = new long[ranks];
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long sent0 = client.sentReports();
            long dropped0 = client.droppedReports();
            long every = everyMs * 1_000_000L;
            long start = System.nanoTime() + 50_000_000L;
            Thread[] ts = new Thread[ranks];
            for (int r = 0; r < ranks; r++) {
                final int rank = r;
                ts[r] = new Thread(() -> {
                    long[][] mine = new long[counts.length][counts[0].length];
                    for (int i = -warmup; i < calls; i++) {
                        long deadline = start + (i + warmup) * every;
                        for (long now = System.nanoTime(); now < deadline; now = System.nanoTime()) {
                            java.util.concurrent.locks.LockSupport.parkNanos(deadline - now);
                        }
                        // A trainer reports counts it has just computed: the rank writes this step's counts first.
                        for (long[] row : mine) {
                            Arrays.fill(row, 1000 + i + rank);
                        }
                        long a0 = mx.getCurrentThreadAllocatedBytes();
                        long c0 = mx.getCurrentThreadCpuTime();
                        long t0 = System.nanoTime();
                        client.report(1, i + warmup, rank, 0, mine, adopted);
                        long t1 = System.nanoTime();
                        long c1 = mx.getCurrentThreadCpuTime();
                        long a1 = mx.getCurrentThreadAllocatedBytes();
                        if (i >= 0) {
                            wall[rank][i] = t1 - t0;
                            cpu[rank][i] = c1 - c0;
                            allocated[rank] += a1 - a0;
                        }
                    }
                }, "rank-" + r);
                ts[r].start();
            }
            for (Thread t : ts) {
                t.join();
            }
            Thread.sleep(100); // the sender's last pass (it polls at most every 10 ms)
            return new Quiet(everyMs, Arrays.stream(wall).flatMapToLong(Arrays::stream).sorted().toArray(),
                    Arrays.stream(cpu).flatMapToLong(Arrays::stream).sorted().toArray(),
                    Arrays.stream(allocated).sum(), client.sentReports() - sent0, client.droppedReports() - dropped0);
        }

        synchronized long pct(double p) {
            long[] s = Arrays.copyOf(samples, n);
            Arrays.sort(s);
            return Run.pct(s, p);
        }

        int count() {
            return n;
        }

        @Override
        public void close() {
            client.close();
            sink.stop(0);
        }
    }
}
