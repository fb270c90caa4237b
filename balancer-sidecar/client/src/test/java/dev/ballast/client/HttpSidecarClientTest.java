package dev.ballast.client;

import com.sun.net.httpserver.HttpServer;
import dev.ballast.contracts.plan.PlanVersion;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The report path end to end against a local HTTP sink that records every body it receives. */
class HttpSidecarClientTest {
    private HttpServer sink;
    private final List<String> bodies = new CopyOnWriteArrayList<>();
    private String url;

    @BeforeEach
    void startSink() throws IOException {
        sink = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        sink.createContext("/v1/loads", ex -> {
            bodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] ok = "{\"accepted\":true}".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(202, ok.length);
            ex.getResponseBody().write(ok);
            ex.close();
        });
        sink.start();
        url = "http://127.0.0.1:" + sink.getAddress().getPort();
    }

    @AfterEach
    void stopSink() {
        sink.stop(0);
    }

    @Test
    void sendsTheSameBodyAsReportJsonInOrderAcrossShapeChanges() {
        List<StepLoads> reports = List.of(
                new StepLoads(1, 0, 3, 0, new long[][] {{1, 2, 3}, {4, 5, 6}}, null),
                new StepLoads(1, 1, 3, 0, ReportRingTest.counts(3, 1, 60, 64), new PlanVersion(1, 4)),
                new StepLoads(2, 2, 3, 5, new long[][] {{0}, {1L << 48}}, new PlanVersion(2, 0)),
                new StepLoads(2, 3, 3, 0, ReportRingTest.counts(3, 3, 60, 64), null));
        try (HttpSidecarClient c = new HttpSidecarClient(url)) {
            for (StepLoads r : reports) {
                c.report(r.worldGeneration(), r.step(), r.gpuRank(), r.firstLayer(), r.counts(), r.adopted());
            }
            await(() -> c.sentReports() == reports.size());
            assertThat(c.droppedReports()).isZero();
        }
        assertThat(bodies).containsExactlyElementsOf(reports.stream().map(ReportJson::encode).toList());
    }

    @Test
    void closeSendsWhatIsStillQueued() {
        int reports = 10; // close() must wait for all of them, not only the one in flight (this sink answers in ~45 ms)
        try (HttpSidecarClient c = new HttpSidecarClient(url)) {
            for (int i = 0; i < reports; i++) {
                c.report(1, i, 0, 0, new long[][] {{i, 1}}, null);
            }
        }
        assertThat(bodies).hasSize(reports);
        assertThat(bodies.get(reports - 1)).contains("\"step\":" + (reports - 1) + ",");
    }

    @Test
    void theCallerMayReuseItsArraysAtOnce() {
        long[][] counts = {{7, 7}};
        try (HttpSidecarClient c = new HttpSidecarClient(url)) {
            c.report(1, 1, 0, 0, counts, null);
            counts[0][0] = 9; // after the call: must not reach the queued report
            c.report(1, 2, 0, 0, counts, null);
            await(() -> c.sentReports() == 2);
        }
        assertThat(bodies.get(0)).endsWith("\"counts\":[[7,7]]}");
        assertThat(bodies.get(1)).endsWith("\"counts\":[[9,7]]}");
    }

    @Test
    void refusesBadCountsAtTheCallerAndQueuesNothing() {
        long[][] bad = ReportRingTest.counts(0, 0, 4, 8);
        bad[3][5] = -1;
        try (HttpSidecarClient c = new HttpSidecarClient(url)) {
            assertThatThrownBy(() -> c.report(1, 7, 0, 10, bad, null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("layer 13 expert 5: negative count -1");
            assertThatThrownBy(() -> c.report(1, 7, 0, 0, new long[][] {{1, 2}, {3}}, null))
                    .hasMessage("layer 1 has 1 counts, layer 0 has 2");
            assertThatThrownBy(() -> c.report(1, 7, 0, 0, new long[2][32_769], null)).hasMessageContaining("at most 65536 counts");
            assertThatThrownBy(() -> c.report(-1, 7, 0, 0, new long[][] {{1}}, null)).hasMessageContaining("must be >= 0");
            assertThat(c.queuedReports()).isZero();
            c.report(1, 8, 0, 0, new long[][] {{1, 2}}, null);
            await(() -> c.sentReports() == 1);
            assertThat(c.droppedReports()).isZero();
        }
        assertThat(bodies).containsExactly("{\"worldGeneration\":1,\"step\":8,\"gpuRank\":0,\"firstLayer\":0,\"counts\":[[1,2]]}");
    }

    @Test
    void withoutASidecarEveryReportIsDroppedAndCountedAndTheCallReturns() {
        // Nothing listens on port 1: reports are dropped from the full queue or when their POST fails; none is lost
        // from the accounting and the call never waits.
        long[][] counts = ReportRingTest.counts(0, 0, 60, 64);
        int calls = 5_000;
        try (HttpSidecarClient c = new HttpSidecarClient("http://127.0.0.1:1")) {
            long t0 = System.nanoTime();
            for (int i = 0; i < calls; i++) {
                c.report(1, i, 0, 0, counts, null);
            }
            assertThat(System.nanoTime() - t0).as("%d report calls", calls).isLessThan(2_000_000_000L);
            await(() -> c.droppedReports() == calls);
            assertThat(c.sentReports()).isZero();
            assertThat(c.lastError()).isNotNull();
        }
    }

    @Test
    void theReportCallAllocatesNothingOnceWarm() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[][] counts = ReportRingTest.counts(0, 0, 60, 64);
        PlanVersion adopted = new PlanVersion(1, 3);
        try (HttpSidecarClient c = new HttpSidecarClient("http://127.0.0.1:1")) {
            for (int i = 0; i < 20_000; i++) { // fills every slot once (their buffers are allocated then) and warms the JIT
                c.report(1, i, 0, 0, counts, adopted);
            }
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < 5_000; i++) {
                c.report(1, i, 0, 0, counts, adopted);
            }
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            // Less than one byte per call: no call allocates (the smallest object is 16 bytes). A one-time JVM
            // event may (linking a call site on a path first taken after a deoptimization: 88 bytes once seen).
            assertThat(allocated).as("bytes allocated by 5,000 report calls").isLessThan(5_000);
        }
    }

    private static void await(BooleanSupplier condition) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within 10 s").isLessThan(deadline);
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }
}
