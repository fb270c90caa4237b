package dev.ballast.client;

import dev.ballast.contracts.plan.PlanVersion;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

class ReportRingTest {
    /** Counts that name their report, so a torn or misplaced copy shows: rank, step, layer and expert in one number. */
    static long[][] counts(int rank, long step, int layers, int experts) {
        long[][] c = new long[layers][experts];
        for (int l = 0; l < layers; l++) {
            for (int e = 0; e < experts; e++) {
                c[l][e] = rank * 1_000_000_000_000L + step * 1_000_000 + l * 1_000 + e;
            }
        }
        return c;
    }

    static void offer(ReportRing ring, int rank, long step, int layers, int experts) {
        ring.offer(1, step, rank, 2, counts(rank, step, layers, experts), experts, new PlanVersion(1, step),
                new StepTiming(step, rank));
    }

    static void assertIntact(FlatReport r) {
        assertThat(r.adopted).isEqualTo(new PlanVersion(1, r.step));
        if (r.stepNanos != r.step || r.computeNanos != r.gpuRank) {
            assertThat(new long[] {r.stepNanos, r.computeNanos}).as("timing").containsExactly(r.step, r.gpuRank);
        }
        for (int l = 0; l < r.layers; l++) {
            for (int e = 0; e < r.experts; e++) {
                long want = r.gpuRank * 1_000_000_000_000L + r.step * 1_000_000 + l * 1_000 + e;
                if (r.count(l, e) != want) { // a plain comparison: this runs for every count of every report
                    assertThat(r.count(l, e)).as("rank %d step %d layer %d expert %d", r.gpuRank, r.step, l, e).isEqualTo(want);
                }
            }
        }
    }

    @Test
    void keepsOrderAndContent() {
        ReportRing ring = new ReportRing(8);
        FlatReport r = new FlatReport();
        assertThat(ring.poll(r)).isFalse();
        for (int round = 0; round < 5; round++) { // wraps the ring several times
            for (int i = 0; i < 8; i++) {
                offer(ring, 3, round * 8 + i, 2, 3);
            }
            assertThat(ring.size()).isEqualTo(8);
            for (int i = 0; i < 8; i++) {
                assertThat(ring.poll(r)).isTrue();
                assertThat(r.step).isEqualTo(round * 8 + i);
                assertThat(r.firstLayer).isEqualTo(2);
                assertIntact(r);
            }
            assertThat(ring.poll(r)).isFalse();
        }
        assertThat(ring.dropped()).isZero();
    }

    @Test
    void whenFullDropsTheOldestAndCountsIt() {
        ReportRing ring = new ReportRing(4);
        for (int step = 0; step < 10; step++) {
            offer(ring, 0, step, 1, 2);
        }
        assertThat(ring.dropped()).isEqualTo(6);
        FlatReport r = new FlatReport();
        List<Long> steps = new ArrayList<>();
        while (ring.poll(r)) {
            assertIntact(r);
            steps.add(r.step);
        }
        assertThat(steps).containsExactly(6L, 7L, 8L, 9L);
    }

    @Test
    void inSteadyStateTheSameFewBuffersAreReused() {
        // 8 ranks report, the sender takes all 8, again and again: only 8 of the 256 buffers are ever written, so
        // the copies land in memory touched a step ago, not seconds ago.
        ReportRing ring = new ReportRing(256);
        FlatReport r = new FlatReport();
        for (int step = 0; step < 1_000; step++) {
            for (int rank = 0; rank < 8; rank++) {
                offer(ring, rank, step, 2, 4);
            }
            for (int rank = 0; rank < 8; rank++) {
                assertThat(ring.poll(r)).isTrue();
                assertThat(r.gpuRank).isEqualTo(rank);
                assertIntact(r);
            }
        }
        assertThat(ring.buffersInUse()).isEqualTo(8);
        assertThat(ring.dropped()).isZero();
    }

    @Test
    void shapeChangesReuseOrGrowTheSlots() {
        ReportRing ring = new ReportRing(2);
        FlatReport r = new FlatReport();
        int[][] shapes = {{1, 2}, {60, 64}, {3, 1}, {60, 64}, {2, 200}};
        for (int i = 0; i < shapes.length; i++) {
            offer(ring, 1, i, shapes[i][0], shapes[i][1]);
            assertThat(ring.poll(r)).isTrue();
            assertThat(r.layers).isEqualTo(shapes[i][0]);
            assertThat(r.experts).isEqualTo(shapes[i][1]);
            assertIntact(r);
        }
    }

    @Test
    void severalProducersLoseNothingWhenTheRingHasRoom() throws InterruptedException {
        int producers = 8;
        int perProducer = 2_000;
        ReportRing ring = new ReportRing(16_384);
        runProducers(ring, producers, perProducer, 2, 3);
        FlatReport r = new FlatReport();
        long[] next = new long[producers];
        int received = 0;
        while (ring.poll(r)) {
            assertThat(r.step).as("rank %d in order", r.gpuRank).isEqualTo(next[r.gpuRank]);
            next[r.gpuRank]++;
            assertIntact(r);
            received++;
        }
        assertThat(received).isEqualTo(producers * perProducer);
        assertThat(ring.dropped()).isZero();
    }

    @Test
    void severalProducersAndADrainingConsumerAccountForEveryReport() throws InterruptedException {
        int producers = 8;
        int perProducer = 3_000;
        ReportRing ring = new ReportRing(4); // nearly always full: freed buffers are taken at once
        AtomicBoolean done = new AtomicBoolean();
        long[] received = new long[1];
        List<Throwable> failures = new ArrayList<>();
        Thread consumer = new Thread(() -> {
            FlatReport r = new FlatReport();
            long[] last = new long[producers];
            java.util.Arrays.fill(last, -1);
            try {
                while (true) {
                    boolean finished = done.get();
                    if (ring.poll(r)) {
                        // per rank, steps only go forward (drops may leave gaps, never reorder or repeat)
                        assertThat(r.step).isGreaterThan(last[r.gpuRank]);
                        last[r.gpuRank] = r.step;
                        assertIntact(r);
                        received[0]++;
                    } else if (finished) {
                        return;
                    }
                }
            } catch (Throwable t) {
                failures.add(t);
            }
        });
        consumer.start();
        runProducers(ring, producers, perProducer, 60, 64);
        done.set(true);
        consumer.join();
        assertThat(failures).isEmpty();
        assertThat(received[0] + ring.dropped()).isEqualTo((long) producers * perProducer);
        assertThat(received[0]).isPositive();
    }

    /** Each producer refills one array per step, as a trainer would: the ring must have copied the last one. */
    private static void runProducers(ReportRing ring, int producers, int perProducer, int layers, int experts)
            throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        Thread[] ts = new Thread[producers];
        for (int p = 0; p < producers; p++) {
            int rank = p;
            ts[p] = new Thread(() -> {
                long[][] c = new long[layers][experts];
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perProducer; i++) {
                    for (int l = 0; l < layers; l++) {
                        for (int e = 0; e < experts; e++) {
                            c[l][e] = rank * 1_000_000_000_000L + i * 1_000_000L + l * 1_000 + e;
                        }
                    }
                    ring.offer(1, i, rank, 2, c, experts, new PlanVersion(1, i), new StepTiming(i, rank));
                }
            });
            ts[p].start();
        }
        start.countDown();
        for (Thread t : ts) {
            t.join();
        }
    }
}
