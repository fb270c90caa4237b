package dev.ballast.trainer.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ballast.trainer.backend.JavaBackend;
import dev.ballast.trainer.data.ByteCorpus;
import dev.ballast.trainer.model.ModelConfig;
import dev.ballast.trainer.optim.AdamWConfig;
import dev.ballast.trainer.train.Trainer;
import dev.ballast.trainer.train.TrainerConfig;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One process: save, resume, and what a reader refuses. */
class SingleProcessCheckpointTest {

    private static final ByteCorpus TEXT = ByteCorpus.load(ByteCorpus.DEFAULT);
    private static final TrainerConfig CONFIG = new TrainerConfig(new ModelConfig(6, 16, 32, 2, 4, 2),
            AdamWConfig.defaults().withLr(1e-2f), ByteCorpus.DEFAULT, 20, 64, 11, "java");

    @TempDir
    Path root;

    @Test
    void tenStepsCheckpointedAndResumedForTenMoreGiveTheSameLossBitsAsTwentyStraight() throws IOException {
        List<Double> straight = train(new Trainer(CONFIG, TEXT, JavaBackend.create()), 20, null);

        Checkpointing every10 = new Checkpointing(root, 10, 3);
        List<Double> first = train(new Trainer(CONFIG, TEXT, JavaBackend.create()), 10, every10);
        assertThat(Files.readString(root.resolve("latest")).strip()).isEqualTo("gen-3-step-10");

        Trainer resumed = new Trainer(CONFIG, TEXT, JavaBackend.create());
        resumed.restore(every10.resumeState().orElseThrow());
        assertThat(resumed.completedSteps()).isEqualTo(10);
        List<Double> rest = train(resumed, 10, null);

        List<Double> joined = new ArrayList<>(first);
        joined.addAll(rest);
        assertThat(bits(joined)).containsExactlyElementsOf(bits(straight));
    }

    @Test
    void aStopRequestSavesAfterTheCurrentStepAndEndsTheLoop() {
        Checkpointing onStop = new Checkpointing(root, 0, 1);
        Trainer trainer = new Trainer(CONFIG, TEXT, JavaBackend.create());
        trainer.step();
        assertThat(onStop.afterStep(trainer, null)).isFalse();
        assertThat(root.resolve("latest")).doesNotExist();
        trainer.step();
        onStop.requestStop();
        assertThat(onStop.afterStep(trainer, null)).isTrue();
        assertThat(onStop.resumeState().orElseThrow().step()).isEqualTo(2);
    }

    @Test
    void noLatestIsAFreshStartAndAnUnpublishedDirectoryIsIgnored() {
        Checkpointing every5 = new Checkpointing(root, 5, 0);
        assertThat(every5.resumeState()).isEmpty();
        Trainer trainer = new Trainer(CONFIG, TEXT, JavaBackend.create());
        train(trainer, 5, every5);
        trainer.step();
        // a writer killed before publishing: its parts and even its descriptor are there, latest is not moved
        Path half = CheckpointLayout.directory(root, 0, 6);
        CheckpointWriter.writePart(half, 0, trainer.checkpointSlices(), trainer.dataStream());
        CheckpointWriter.writeDescriptor(half, 6, 1);
        assertThat(every5.resumeState().orElseThrow().step()).isEqualTo(5);
    }

    @Test
    void aProcessOfAnOlderGenerationCannotMoveLatestBackToItsCheckpoint() throws IOException {
        train(new Trainer(CONFIG, TEXT, JavaBackend.create()), 1, new Checkpointing(root, 1, 5));
        Checkpointing fenced = new Checkpointing(root, 1, 4);
        Trainer old = new Trainer(CONFIG, TEXT, JavaBackend.create());
        old.step();
        old.step();
        assertThatThrownBy(() -> fenced.afterStep(old, null)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("generation 5").hasMessageContaining("generation 4");
        assertThat(Files.readString(root.resolve("latest")).strip()).isEqualTo("gen-5-step-1");
    }

    @Test
    void aBadChecksumAMissingPartOrAMissingDirectoryIsRefusedNamingTheFile() throws IOException {
        Checkpointing every2 = new Checkpointing(root, 2, 0);
        train(new Trainer(CONFIG, TEXT, JavaBackend.create()), 2, every2);
        Path dir = CheckpointLayout.directory(root, 0, 2);
        Path data = dir.resolve("part-0.bin");

        flipBit(data);
        assertThatThrownBy(every2::resumeState).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(data.toString()).hasMessageContaining("checksum");
        flipBit(data);
        assertThat(every2.resumeState().orElseThrow().step()).isEqualTo(2);

        CheckpointWriter.writeDescriptor(dir, 2, 2); // claims a second part that no writer wrote
        assertThatThrownBy(() -> CheckpointReader.read(dir)).hasMessageContaining(dir.resolve("part-1.bin")
                .toString()).hasMessageContaining("missing");

        Files.writeString(root.resolve("latest"), "gen-0-step-4\n");
        assertThatThrownBy(every2::resumeState).hasMessageContaining(CheckpointLayout.directory(root, 0, 4)
                .resolve("checkpoint.txt").toString()).hasMessageContaining("missing");
    }

    @Test
    void aPartThatLeavesAGapInATensorIsRefused() {
        Trainer trainer = new Trainer(CONFIG, TEXT, JavaBackend.create());
        Path dir = CheckpointLayout.directory(root, 0, 0);
        List<TensorSlice> slices = new ArrayList<>(trainer.checkpointSlices());
        TensorSlice whole = slices.remove(0);
        slices.add(new TensorSlice(whole.name(), whole.rows(), whole.cols(), 1,
                Arrays.copyOfRange(whole.data(), 1, whole.data().length),
                Arrays.copyOfRange(whole.m(), 1, whole.m().length),
                Arrays.copyOfRange(whole.v(), 1, whole.v().length), whole.steps()));
        CheckpointWriter.writePart(dir, 0, slices, trainer.dataStream());
        CheckpointWriter.writeDescriptor(dir, 0, 1);
        assertThatThrownBy(() -> CheckpointReader.read(dir)).hasMessageContaining(whole.name())
                .hasMessageContaining("gap at element 0");
    }

    private static void flipBit(Path file) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(100);
            int b = f.read();
            f.seek(100);
            f.write(b ^ 1);
        }
    }

    private static List<Double> train(Trainer trainer, int steps, Checkpointing checkpoints) {
        List<Double> losses = new ArrayList<>();
        for (int s = 0; s < steps; s++) {
            losses.add(trainer.step().loss());
            if (checkpoints != null) {
                checkpoints.afterStep(trainer, null);
            }
        }
        return losses;
    }

    static List<Long> bits(List<Double> xs) {
        return xs.stream().map(Double::doubleToRawLongBits).toList();
    }
}
