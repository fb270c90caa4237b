package dev.ballast.collectives;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.contracts.env.LocalPorts;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Collectives fail loudly and promptly: a dead peer, a rank that never calls, ranks that call different things. */
class FailureTest {

    @Test
    void aPeerThatDiesMidCollectiveFailsTheOthersPromptlyNamingIt() throws Exception {
        try (TestWorld world = TestWorld.of(2, 1)) {
            List<RankComm> ranks = world.ranks();
            long start = System.nanoTime();
            // pod 0's ranks enter an all-reduce; pod 1's rank never does, and its pod dies
            CompletableFuture<float[]> r0 = TestWorld.async(() -> ranks.get(0).allReduce(new float[8], ReduceOp.SUM));
            CompletableFuture<float[]> r1 = TestWorld.async(() -> ranks.get(1).allReduce(new float[8], ReduceOp.SUM));
            Thread.sleep(300);
            world.nodes.get(1).kill();
            for (CompletableFuture<float[]> f : List.of(r0, r1)) {
                assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(CollectiveException.class)
                    .hasMessageContaining("allReduce call #0")
                    .hasMessageContaining("node rank 1 (pod-1 at 127.0.0.1:");
            }
            // promptly: long before the 20 s collective timeout
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(10));
            // and the rank stays failed
            assertThatThrownBy(() -> ranks.get(0).barrier()).isInstanceOf(CollectiveException.class)
                .hasMessageContaining("an earlier collective failed");
        }
    }

    @Test
    void aRootBroadcastingToADeadPodFailsPromptly() {
        try (TestWorld world = TestWorld.of(1, 1)) {
            world.nodes.get(1).kill();
            long start = System.nanoTime();
            RankComm root = world.ranks().get(0);
            assertThatThrownBy(() -> {
                root.broadcast(new float[] {1f}, 0); // may still reach the dying pod once; the next cannot
                root.broadcast(new float[] {2f}, 0);
            }).isInstanceOf(CollectiveException.class).hasMessageContaining("node rank 1 (pod-1 at 127.0.0.1:");
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(10));
        }
    }

    @Test
    void aRankThatNeverCallsTimesOutNamingIt() {
        int port = LocalPorts.listenPort();
        java.time.Duration oneSecond = java.time.Duration.ofSeconds(1);
        CompletableFuture<CommNode> zero = TestWorld.async(
            () -> CommNode.join(TestWorld.config(port, 2, 0, 2, 1, TestWorld.TIMEOUT, oneSecond)));
        try (CommNode one = CommNode.join(TestWorld.config(port, 2, 1, 1, 1, TestWorld.TIMEOUT, oneSecond));
             CommNode z = zero.join()) {
            CompletableFuture<Void> r1 = TestWorld.async(() -> {
                z.rank(1).barrier();
                return null;
            });
            assertThatThrownBy(() -> z.rank(0).barrier()).isInstanceOf(CollectiveException.class)
                .hasMessageContaining("barrier call #0")
                .hasMessageContaining("on rank 0 timed out: no message from ranks [2]");
            assertThatThrownBy(r1::join).cause().hasMessageContaining("no message from ranks [2]");
        }
    }

    @Test
    void ranksCallingDifferentCollectivesFailLoudly() {
        try (TestWorld world = TestWorld.of(1, 1)) {
            List<CompletableFuture<Object>> calls = world.start(c -> c.rank() == 0
                ? c.allReduce(new float[4], ReduceOp.SUM) : c.broadcast(new float[4], 1));
            assertThatThrownBy(() -> calls.get(0).get(10, TimeUnit.SECONDS)).cause()
                .isInstanceOf(CollectiveException.class)
                .hasMessageContaining("rank 0 called allReduce call #0 (SUM of FLOAT, check 4) but rank 1 called "
                    + "broadcast call #0 (FLOAT, check 1)");
        }
    }

    @Test
    void allReducesOfDifferentLengthsFailLoudly() {
        try (TestWorld world = TestWorld.of(2)) {
            List<CompletableFuture<float[]>> calls =
                world.start(c -> c.allReduce(new float[4 + c.rank()], ReduceOp.MAX));
            for (CompletableFuture<float[]> f : calls) {
                assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).cause()
                    .hasMessageContaining("MAX of FLOAT, check 4")
                    .hasMessageContaining("MAX of FLOAT, check 5");
            }
        }
    }

    @Test
    void badArgumentsAreRefusedBeforeAnythingIsSent() {
        try (TestWorld world = TestWorld.of(2)) {
            RankComm r = world.ranks().get(0);
            assertThatThrownBy(() -> r.allToAllV(new float[3][])).hasMessageContaining("3 arrays for a world of 2");
            assertThatThrownBy(() -> r.reduceScatter(new float[3], new int[] {1, 1}, ReduceOp.SUM))
                .hasMessageContaining("shard sizes sum to 2 but rank 0 passed 3 values");
            assertThatThrownBy(() -> r.broadcast(new float[1], 2)).hasMessageContaining("broadcast root 2 is outside");
            // refused arguments leave the rank usable
            List<float[]> sums = world.run(c -> c.allReduce(new float[] {c.rank() + 1}, ReduceOp.SUM));
            assertThat(sums).allSatisfy(s -> assertThat(s).containsExactly(3f));
        }
    }
}
