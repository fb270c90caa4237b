package dev.ballast.trainer.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.contracts.env.ProcessEnv;
import dev.ballast.trainer.data.ByteCorpus;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** bin/ballast train in its own JVM, stopped with SIGTERM as the kubelet stops a worker, then started again. */
class SigtermCheckpointTest {

    @TempDir
    Path root;

    @Test
    @Timeout(180)
    void sigtermSavesTheStepItFinishedAndTheNextStartResumesAfterIt() throws Exception {
        Process first = trainer("1000000");
        List<String> printed = new ArrayList<>();
        try (BufferedReader out = reader(first)) {
            String line;
            while ((line = out.readLine()) != null) {
                printed.add(line);
                if (line.startsWith("step") && stepOf(line) >= 3) {
                    first.toHandle().destroy(); // SIGTERM (Process.destroy would also close our end of its output)
                    break;
                }
            }
            while ((line = out.readLine()) != null) {
                printed.add(line);
            }
        }
        assertThat(first.waitFor(60, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
        int lastPrinted = printed.stream().filter(l -> l.startsWith("step")).mapToInt(SigtermCheckpointTest::stepOf)
                .max().orElseThrow();
        int saved = CheckpointReader.latest(root).orElseThrow().step();
        assertThat(saved).as("checkpointed step; printed " + printed).isEqualTo(lastPrinted);

        Process second = trainer(String.valueOf(saved + 2));
        List<String> resumed = new ArrayList<>();
        try (BufferedReader out = reader(second)) {
            out.lines().forEach(resumed::add);
        }
        assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(second.exitValue()).as(String.join("\n", resumed)).isZero();
        assertThat(resumed).contains("resumed from the checkpoint of step " + saved);
        assertThat(resumed.stream().filter(l -> l.startsWith("step")).map(SigtermCheckpointTest::stepOf))
                .containsExactly(saved + 1, saved + 2);
    }

    private Process trainer(String steps) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-modules", "jdk.incubator.vector", "-cp", System.getProperty("java.class.path"),
                "dev.ballast.trainer.train.TrainMain", "--data", ByteCorpus.DEFAULT.toString(), "--steps", steps,
                "--batch", "16", "--window", "4", "--dim", "8", "--ffn-dim", "16", "--layers", "1", "--experts", "4",
                "--backend", "java", "--checkpoint-dir", root.toString());
        pb.environment().put(ProcessEnv.CHECKPOINT_TIMEOUT_SECONDS, "30");
        pb.environment().remove(ProcessEnv.CHECKPOINT_DIR);
        pb.redirectErrorStream(true);
        return pb.start();
    }

    private static BufferedReader reader(Process p) {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    }

    private static int stepOf(String line) {
        return Integer.parseInt(line.trim().split("\\s+")[1]);
    }
}
