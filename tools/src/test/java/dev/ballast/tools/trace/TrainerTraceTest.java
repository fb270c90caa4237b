package dev.ballast.tools.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.trainer.train.TrainMain;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The reference trainer's --trace output is a ballast-trace/v1 file the bench reads: learned routing, many steps. */
class TrainerTraceTest {

    @Test
    void theReferenceTrainersRoutingTraceReadsBack(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("trainer.jsonl");
        TrainMain.main(new String[] {"--pods", "2", "--ranks", "1", "--steps", "4", "--batch", "16", "--window", "4",
            "--dim", "8", "--ffn-dim", "16", "--layers", "2", "--experts", "4", "--top-k", "2", "--backend", "java",
            "--trace", file.toString()});

        MemoryTrace t = TraceReader.read(file);
        assertThat(t.header()).isEqualTo(new TraceHeader("ballast-reference", 2, 4, 2, 2,
                "ballast reference trainer, seed 1, batch 16 per rank, replicate, routing-skew 0.0"));
        assertThat(t.steps()).isEqualTo(4);
        for (int i = 0; i < t.steps(); i++) {
            assertThat(t.stepNumber(i)).isEqualTo(i + 1);
            for (int[][] layer : t.counts(i)) {
                for (int[] source : layer) {
                    assertThat(Arrays.stream(source).sum()).as("a rank's 16 tokens, 2 experts each").isEqualTo(32);
                }
            }
        }
    }
}
