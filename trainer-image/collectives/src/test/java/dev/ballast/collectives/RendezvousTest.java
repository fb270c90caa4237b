package dev.ballast.collectives;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.contracts.env.LocalPorts;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** Joining a world: generations, missing pods, bad env. */
class RendezvousTest {
    private static final Duration SHORT = Duration.ofSeconds(2);

    @Test
    void aPodOfAnotherGenerationIsRefusedWithAClearError() {
        int port = LocalPorts.listenPort();
        CompletableFuture<CommNode> master = TestWorld.async(
            () -> CommNode.join(TestWorld.config(port, 2, 0, 1, 5, Duration.ofSeconds(20), SHORT)));
        assertThatThrownBy(() -> CommNode.join(TestWorld.config(port, 2, 1, 1, 4, SHORT, SHORT)))
            .isInstanceOf(CollectiveException.class)
            .hasMessageContaining("registered for world generation 4")
            .hasMessageContaining("store of generation 5")
            .hasMessageContaining("older world");
        // the current generation's pod still joins the group afterwards
        try (CommNode current = CommNode.join(TestWorld.config(port, 2, 1, 2, 5, SHORT, SHORT));
             CommNode zero = master.join()) {
            assertThat(zero.worldSize()).isEqualTo(3);
            assertThat(current.peers().generation()).isEqualTo(5);
        }
    }

    @Test
    void aPodThatNeverRegistersFailsTheOthersWithItsNodeRank() {
        int port = LocalPorts.listenPort();
        Duration wait = Duration.ofSeconds(4); // long enough for both pods to register on a loaded machine
        CompletableFuture<CommNode> zero = TestWorld.async(
            () -> CommNode.join(TestWorld.config(port, 3, 0, 1, 1, wait, SHORT)));
        CompletableFuture<CommNode> one = TestWorld.async(
            () -> CommNode.join(TestWorld.config(port, 3, 1, 2, 1, wait, SHORT)));
        for (CompletableFuture<CommNode> f : List.of(zero, one)) {
            assertThatThrownBy(f::join).isInstanceOf(CompletionException.class)
                .cause().isInstanceOf(CollectiveException.class)
                .hasMessageContaining("timed out after 4 s")
                .hasMessageContaining("node ranks [2] never registered");
        }
    }

    @Test
    void withoutARendezvousStoreTheJoinFailsNamingMasterAddr() {
        int port = LocalPorts.listenPort();
        assertThatThrownBy(() -> CommNode.join(TestWorld.config(port, 2, 1, 1, 3, Duration.ofMillis(500), SHORT)))
            .isInstanceOf(CollectiveException.class)
            .hasMessageContaining("MASTER_ADDR:MASTER_PORT=127.0.0.1:" + port)
            .hasMessageContaining("node-rank-0 pod of generation 3");
    }

    @Test
    void likeTheProcessKubeletMasterOnItsOwnLoopbackAddressPeersAtTheAddressesTheStoreSaw() {
        // the process kubelet's pods share the host network, each with a loopback address of its own; the trainer
        // gets MASTER_ADDR as the master pod's address and no BALLAST_POD_IP, and every pod listens on the wildcard
        int port = LocalPorts.listenPort();
        List<CompletableFuture<CommNode>> joining = new java.util.ArrayList<>();
        for (int n = 0; n < 2; n++) {
            CommConfig c = new CommConfig("127.0.0.2", port, 2, n, 1, 1, "0.0.0.0", "", 0, "pod-" + n,
                TestWorld.TIMEOUT, TestWorld.TIMEOUT);
            joining.add(TestWorld.async(() -> CommNode.join(c)));
        }
        try (CommNode zero = joining.get(0).join(); CommNode one = joining.get(1).join()) {
            assertThat(zero.peers().peers()).extracting(Peer::host).allSatisfy(h -> assertThat(h).startsWith("127."));
            CompletableFuture<float[]> a = TestWorld.async(
                () -> zero.rank(0).allReduce(new float[] {1f, 5f}, ReduceOp.MAX));
            assertThat(one.rank(0).allReduce(new float[] {3f, 2f}, ReduceOp.MAX)).containsExactly(3f, 5f);
            assertThat(a.join()).containsExactly(3f, 5f);
        }
    }

    @Test
    void aWrongNnodesIsRefused() {
        int port = LocalPorts.listenPort();
        CompletableFuture<CommNode> master = TestWorld.async(
            () -> CommNode.join(TestWorld.config(port, 2, 0, 1, 1, Duration.ofSeconds(4), SHORT)));
        assertThatThrownBy(() -> CommNode.join(TestWorld.config(port, 3, 1, 1, 1, SHORT, SHORT)))
            .hasMessageContaining("expects NNODES=3 but generation 1 has 2 pods");
        assertThatThrownBy(master::join).cause().hasMessageContaining("node ranks [1] never registered");
    }

    @Test
    void configFromTheOperatorsEnv() {
        Map<String, String> env = Map.of("MASTER_ADDR", "job-g2-0.job.ns.svc", "NNODES", "4", "NODE_RANK", "3",
            "NPROC_PER_NODE", "2", "BALLAST_WORLD_GENERATION", "2", "HOSTNAME", "job-g2-3");
        CommConfig c = CommConfig.fromEnv(env);
        assertThat(c.masterPort()).isEqualTo(29500);
        assertThat(c.bindHost()).isEqualTo("0.0.0.0");
        assertThat(c.advertiseHost()).isEmpty();
        assertThat(c.name()).isEqualTo("job-g2-3");
        assertThat(c.listenPort()).isZero();
        assertThat(c.timeout()).isEqualTo(Duration.ofSeconds(300));

        assertThatThrownBy(() -> CommConfig.fromEnv(Map.of("MASTER_ADDR", "m", "NNODES", "2", "NODE_RANK", "2",
            "NPROC_PER_NODE", "1", "BALLAST_WORLD_GENERATION", "1")))
            .hasMessageContaining("NODE_RANK 2 is outside 0..1");
        assertThatThrownBy(() -> CommConfig.fromEnv(Map.of("MASTER_ADDR", "m", "NNODES", "two")))
            .hasMessageContaining("NNODES=two is not an integer");
        assertThatThrownBy(() -> CommConfig.fromEnv(Map.of("NNODES", "2")))
            .hasMessageContaining("MASTER_ADDR is not set");
    }
}
