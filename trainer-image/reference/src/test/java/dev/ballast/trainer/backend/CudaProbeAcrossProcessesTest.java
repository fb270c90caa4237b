package dev.ballast.trainer.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trainers that start together on one host share its temporary directory, where JCuda writes its native libraries
 * before loading them. Without the probe's lock, two of four JVMs started at once on an empty directory died of SIGBUS
 * (exit code 134) in one of three tries on this project's machine; every JVM must finish its probe.
 */
class CudaProbeAcrossProcessesTest {

    /** Probes CUDA the way a trainer's first backend choice does, and prints the outcome. */
    public static void main(String[] args) {
        System.out.println("cuda available: " + Backends.cudaAvailable());
    }

    @Test
    void trainersStartingTogetherOnOneHostAllFinishTheProbe(@TempDir Path root) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (int round = 0; round < 3; round++) {
            Path tmp = Files.createDirectory(root.resolve("tmp-" + round));
            List<Process> processes = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                processes.add(new ProcessBuilder(java, "-Djava.io.tmpdir=" + tmp, "-cp",
                        System.getProperty("java.class.path"), CudaProbeAcrossProcessesTest.class.getName())
                        .redirectErrorStream(true).redirectOutput(root.resolve("out-" + round + "-" + i).toFile())
                        .start());
            }
            for (int i = 0; i < processes.size(); i++) {
                Process p = processes.get(i);
                assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("round %d process %d finished", round, i).isTrue();
                String out = Files.readString(root.resolve("out-" + round + "-" + i));
                assertThat(p.exitValue()).as("round %d process %d:%n%s", round, i, out).isZero();
                assertThat(out).contains("cuda available: ");
            }
        }
    }
}
