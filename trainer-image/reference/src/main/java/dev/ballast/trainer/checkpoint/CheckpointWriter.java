package dev.ballast.trainer.checkpoint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.CRC32;

/**
 * Writes the files of a checkpoint directory (layout in docs/trainer.md, "Checkpoints"): each writer its part, then
 * one writer the descriptor, then {@link #publish} points {@code latest} at the directory with one atomic rename.
 */
public final class CheckpointWriter {

    private CheckpointWriter() {
    }

    /** part-R.bin (data, m, v of each slice, float32 little-endian) and its manifest part-R.txt. */
    public static void writePart(Path dir, int part, List<TensorSlice> slices, DataStream stream) {
        StringBuilder manifest = new StringBuilder(CheckpointLayout.PART_HEADER);
        manifest.append("stream ").append(stream.seed()).append(' ').append(stream.position()).append('\n');
        long offset = 0;
        try {
            Files.createDirectories(dir);
            try (FileChannel out = FileChannel.open(dir.resolve(CheckpointLayout.partData(part)),
                    StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                for (TensorSlice s : slices) {
                    ByteBuffer bytes = encode(s);
                    CRC32 crc = new CRC32();
                    crc.update(bytes.duplicate());
                    manifest.append(String.format("tensor %s %d %d %d %d %d %d %08x%n", s.name(), s.rows(), s.cols(),
                            s.from(), s.data().length, s.steps(), offset, crc.getValue()));
                    offset += bytes.remaining();
                    while (bytes.hasRemaining()) {
                        out.write(bytes);
                    }
                }
                out.force(true);
            }
            writeDurably(dir.resolve(CheckpointLayout.partManifest(part)), manifest.toString());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write checkpoint part " + part + " in " + dir + ": "
                    + e.getMessage(), e);
        }
    }

    /** checkpoint.txt: the step and how many parts make the checkpoint (written after every part). */
    public static void writeDescriptor(Path dir, int step, int parts) {
        try {
            writeDurably(dir.resolve(CheckpointLayout.DESCRIPTOR), CheckpointLayout.FORMAT + "\nstep " + step
                    + "\nparts " + parts + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + dir.resolve(CheckpointLayout.DESCRIPTOR) + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * Makes dir (of generation generation) the checkpoint to resume from: latest.tmp written, then renamed over latest
     * (ATOMIC_MOVE). Refused when latest already names a newer generation: this process belongs to a fenced world.
     */
    public static void publish(Path root, Path dir, long generation) {
        Path tmp = root.resolve(CheckpointLayout.LATEST + ".tmp");
        try {
            Path latest = root.resolve(CheckpointLayout.LATEST);
            if (Files.exists(latest)) {
                long newest = CheckpointLayout.generationOf(Files.readString(latest).strip());
                if (newest > generation) {
                    throw new IllegalStateException("checkpoint " + dir + " not published: " + latest
                            + " already names generation " + newest + " (this process is of generation " + generation
                            + ", an older world)");
                }
            }
            writeDurably(tmp, dir.getFileName() + "\n");
            Files.move(tmp, root.resolve(CheckpointLayout.LATEST), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot publish checkpoint " + dir + ": " + e.getMessage(), e);
        }
    }

    private static ByteBuffer encode(TensorSlice s) {
        ByteBuffer b = ByteBuffer.allocate(3 * Float.BYTES * s.data().length).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(s.data()).put(s.m()).put(s.v());
        return b;
    }

    private static void writeDurably(Path file, String text) throws IOException {
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
            while (b.hasRemaining()) {
                out.write(b);
            }
            out.force(true);
        }
    }
}
