package dev.ballast.collectives;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every collective on worlds of several pods with 1-3 ranks each, against the plain single-process reference. */
class CollectivesTest {

    static Stream<Arguments> layouts() {
        return Stream.of(Arguments.of((Object) new int[] {1}), Arguments.of((Object) new int[] {3}),
            Arguments.of((Object) new int[] {1, 1}), Arguments.of((Object) new int[] {2, 1}),
            Arguments.of((Object) new int[] {1, 3, 2}));
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void allReduceMatchesTheReferenceBitForBitOnEveryRank(int[] layout) {
        try (TestWorld world = TestWorld.of(layout)) {
            int w = world.worldSize();
            for (int n : new int[] {0, 1, w - 1, 1000}) {
                for (ReduceOp op : ReduceOp.values()) {
                    List<float[]> inputs = new ArrayList<>();
                    for (int r = 0; r < w; r++) inputs.add(Reference.floats(n, r, n));
                    float[] expected = Reference.reduce(inputs, op);
                    List<float[]> got = world.run(c -> c.allReduce(inputs.get(c.rank()), op));
                    for (float[] g : got) assertThat(bits(g)).as("%s of %d floats", op, n).isEqualTo(bits(expected));

                    List<double[]> dIn = new ArrayList<>();
                    for (int r = 0; r < w; r++) dIn.add(Reference.doubles(n, r, n));
                    double[] dExpected = Reference.reduceDoubles(dIn, op);
                    for (double[] g : world.run(c -> c.allReduce(dIn.get(c.rank()), op))) {
                        assertThat(bits(g)).isEqualTo(bits(dExpected));
                    }

                    List<long[]> lIn = new ArrayList<>();
                    for (int r = 0; r < w; r++) lIn.add(Reference.longs(n, r, n));
                    long[] lExpected = Reference.reduceLongs(lIn, op);
                    for (long[] g : world.run(c -> c.allReduce(lIn.get(c.rank()), op))) {
                        assertThat(g).isEqualTo(lExpected);
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void reduceScatterGivesEachRankItsUnevenShardOfTheReduction(int[] layout) {
        try (TestWorld world = TestWorld.of(layout)) {
            int w = world.worldSize();
            int[] sizes = new int[w];
            for (int r = 0; r < w; r++) sizes[r] = (r * 7) % 5; // uneven, some empty
            int n = Arrays.stream(sizes).sum();
            List<float[]> inputs = new ArrayList<>();
            for (int r = 0; r < w; r++) inputs.add(Reference.floats(3, r, n));
            float[] full = Reference.reduce(inputs, ReduceOp.SUM);
            List<float[]> got = world.run(c -> c.reduceScatter(inputs.get(c.rank()), sizes, ReduceOp.SUM));
            int at = 0;
            for (int r = 0; r < w; r++) {
                assertThat(bits(got.get(r))).isEqualTo(bits(Arrays.copyOfRange(full, at, at + sizes[r])));
                at += sizes[r];
            }
        }
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void broadcastGivesEveryRankTheRootsArray(int[] layout) {
        try (TestWorld world = TestWorld.of(layout)) {
            int root = world.worldSize() - 1;
            float[] payload = Reference.floats(5, root, 17);
            List<float[]> got = world.run(c -> c.broadcast(c.rank() == root ? payload : null, root));
            for (float[] g : got) assertThat(g).containsExactly(payload);
        }
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void allGatherCollectsVariableSizedArraysByRank(int[] layout) {
        try (TestWorld world = TestWorld.of(layout)) {
            int w = world.worldSize();
            List<float[][]> got = world.run(c -> c.allGather(Reference.floats(9, c.rank(), c.rank() % 3)));
            for (float[][] g : got) {
                assertThat(g.length).isEqualTo(w);
                for (int r = 0; r < w; r++) assertThat(g[r]).containsExactly(Reference.floats(9, r, r % 3));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void allToAllVDeliversEachPairsArrayIncludingEmptyOnes(int[] layout) {
        try (TestWorld world = TestWorld.of(layout)) {
            int w = world.worldSize();
            List<float[][]> got = world.run(c -> {
                float[][] out = new float[w][];
                for (int d = 0; d < w; d++) out[d] = message(c.rank(), d);
                return c.allToAllV(out);
            });
            for (int d = 0; d < w; d++) {
                for (int s = 0; s < w; s++) assertThat(got.get(d)[s]).containsExactly(message(s, d));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void sparseAllGatherFetchesExactlyTheWantedChunksFromTheirOwners(int[] layout) {
        try (TestWorld world = TestWorld.of(layout)) {
            int w = world.worldSize();
            int chunks = 2 * w + 1; // chunk k lives on rank k % w
            List<Map<Integer, float[]>> got = world.run(c -> {
                Map<Integer, float[]> owned = new TreeMap<>();
                for (int k = c.rank(); k < chunks; k += w) owned.put(k, Reference.floats(k, 0, k % 4));
                return c.sparseAllGather(owned, wanted(c.rank(), chunks));
            });
            for (int r = 0; r < w; r++) {
                int[] wants = wanted(r, chunks);
                assertThat(got.get(r).keySet()).containsExactlyInAnyOrderElementsOf(
                    Arrays.stream(wants).boxed().distinct().toList());
                for (int k : wants) assertThat(got.get(r).get(k)).containsExactly(Reference.floats(k, 0, k % 4));
            }
        }
    }

    @Test
    void barrierHoldsEveryRankUntilAllArrived() {
        try (TestWorld world = TestWorld.of(2, 1, 2)) {
            AtomicInteger arrived = new AtomicInteger();
            List<Integer> seen = world.run(c -> {
                sleepMillis(30L * c.rank()); // the last rank arrives well after the first
                arrived.incrementAndGet();
                c.barrier();
                return arrived.get();
            });
            assertThat(seen).containsOnly(world.worldSize());
        }
    }

    @Test
    void peerTableNumbersRanksPodByPod() {
        try (TestWorld world = TestWorld.of(2, 3, 1)) {
            PeerTable table = world.nodes.get(1).peers();
            assertThat(table.worldSize()).isEqualTo(6);
            assertThat(table.firstRank(2)).isEqualTo(5);
            assertThat(table.nodeOf(4)).isEqualTo(1);
            assertThat(world.ranks()).extracting(RankComm::rank).containsExactly(0, 1, 2, 3, 4, 5);
            assertThat(table.peers()).extracting(Peer::host).containsOnly("127.0.0.1");
        }
    }

    /** Rank s's message to rank d: sometimes empty, sizes differ per pair. */
    private static float[] message(int s, int d) {
        return (s + d) % 3 == 0 ? new float[0] : Reference.floats(100 + s, d, (s * 5 + d) % 7);
    }

    /** Rank r wants a few chunks, with a duplicate, sometimes its own. */
    private static int[] wanted(int r, int chunks) {
        Random random = new Random(r);
        return new int[] {random.nextInt(chunks), random.nextInt(chunks), r % chunks, r % chunks};
    }

    static int[] bits(float[] x) {
        int[] b = new int[x.length];
        for (int i = 0; i < x.length; i++) b[i] = Float.floatToRawIntBits(x[i]);
        return b;
    }

    static long[] bits(double[] x) {
        long[] b = new long[x.length];
        for (int i = 0; i < x.length; i++) b[i] = Double.doubleToRawLongBits(x[i]);
        return b;
    }

    static void sleepMillis(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
