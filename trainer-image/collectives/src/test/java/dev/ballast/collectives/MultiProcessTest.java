package dev.ballast.collectives;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.contracts.env.LocalPorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** One group across real processes: this JVM is node rank 0, two child JVMs are node ranks 1 and 2. */
class MultiProcessTest {

    @Test
    void threeJvmsFormOneGroupAndAgreeWithTheReference() throws Exception {
        int port = LocalPorts.listenPort();
        int nnodes = 3;
        int perPod = 2;
        int world = nnodes * perPod;
        List<Process> children = new ArrayList<>();
        try {
            for (int n = 1; n < nnodes; n++) children.add(start(port, nnodes, n, perPod));
            List<String> lines = new ArrayList<>();
            try (CommNode zero = CommNode.join(TestWorld.config(port, nnodes, 0, perPod, 7, TestWorld.TIMEOUT,
                TestWorld.TIMEOUT))) {
                assertThat(zero.worldSize()).isEqualTo(world);
                lines.addAll(ProcessPod.runAll(zero));
            }
            for (Process p : children) {
                assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("child pod exits").isTrue();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(p.exitValue()).as("child pod exit code; output:\n" + out).isZero();
                out.lines().filter(l -> l.startsWith("rank ")).forEach(lines::add);
            }

            List<float[]> inputs = new ArrayList<>();
            for (int r = 0; r < world; r++) inputs.add(Reference.floats(11, r, 1000));
            int sum = Arrays.hashCode(CollectivesTest.bits(Reference.reduce(inputs, ReduceOp.SUM)));
            TreeSet<String> expected = new TreeSet<>();
            for (int r = 0; r < world; r++) {
                float[][] in = new float[world][];
                for (int s = 0; s < world; s++) in[s] = Reference.floats(s, r, r);
                expected.add("rank " + r + " sum " + sum + " a2a " + ProcessPod.digest(in));
            }
            assertThat(new TreeSet<>(lines)).isEqualTo(expected);
        } finally {
            for (Process p : children) p.destroyForcibly();
        }
    }

    private static Process start(int port, int nnodes, int nodeRank, int perPod) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "-Xmx256m", "-cp",
            System.getProperty("java.class.path"), ProcessPod.class.getName());
        pb.redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("MASTER_ADDR", "127.0.0.1");
        env.put("MASTER_PORT", Integer.toString(port));
        env.put("NNODES", Integer.toString(nnodes));
        env.put("NODE_RANK", Integer.toString(nodeRank));
        env.put("NPROC_PER_NODE", Integer.toString(perPod));
        env.put("BALLAST_WORLD_GENERATION", "7");
        env.put("BALLAST_BIND_ADDRESS", "127.0.0.1");
        env.put("HOSTNAME", "child-" + nodeRank);
        env.put(CommConfig.TIMEOUT_SECONDS, "30");
        env.put(CommConfig.RENDEZVOUS_TIMEOUT_SECONDS, "30");
        return pb.start();
    }
}
