package dev.ballast.trainer.checkpoint;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.zip.CRC32;

/**
 * Reads the checkpoint {@code latest} names and assembles the whole {@link TrainingState} from its parts, whatever
 * world size wrote them. Directories {@code latest} does not name are never read (they may be half-written). A
 * missing part, a checksum mismatch, a gap or overlap between slices is an error naming the file.
 */
public final class CheckpointReader {

    private CheckpointReader() {
    }

    /** The published checkpoint under root, or empty when there is none (no {@code latest}: a fresh start). */
    public static Optional<TrainingState> latest(Path root) {
        Path pointer = root.resolve(CheckpointLayout.LATEST);
        if (!Files.exists(pointer)) {
            return Optional.empty();
        }
        String name = text(pointer).strip();
        if (name.isEmpty() || name.contains("/") || name.equals("..")) {
            throw new IllegalStateException("checkpoint pointer " + pointer + " names '" + name
                    + "', not a checkpoint directory");
        }
        return Optional.of(read(root.resolve(name)));
    }

    /** The checkpoint in dir (published or not: callers decide; {@link #latest} reads only published ones). */
    public static TrainingState read(Path dir) {
        Path descriptor = dir.resolve(CheckpointLayout.DESCRIPTOR);
        List<String> lines = text(descriptor).lines().toList();
        if (lines.size() < 3 || !lines.get(0).equals(CheckpointLayout.FORMAT)) {
            throw corrupt(descriptor, "is not a '" + CheckpointLayout.FORMAT + "' descriptor");
        }
        int step = (int) number(descriptor, lines.get(1), "step");
        int parts = (int) number(descriptor, lines.get(2), "parts");
        Map<String, List<TensorSlice>> slices = new TreeMap<>();
        List<DataStream> streams = new ArrayList<>();
        for (int p = 0; p < parts; p++) {
            streams.add(readPart(dir, p, slices));
        }
        Map<String, TensorSlice> tensors = new LinkedHashMap<>();
        slices.forEach((name, pieces) -> tensors.put(name, assemble(dir, name, pieces)));
        return new TrainingState(step, tensors, streams);
    }

    private static DataStream readPart(Path dir, int part, Map<String, List<TensorSlice>> into) {
        Path manifest = dir.resolve(CheckpointLayout.partManifest(part));
        Path data = dir.resolve(CheckpointLayout.partData(part));
        ByteBuffer bytes;
        try {
            bytes = ByteBuffer.wrap(Files.readAllBytes(data)).order(ByteOrder.LITTLE_ENDIAN);
        } catch (NoSuchFileException e) {
            throw corrupt(data, "is missing");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read checkpoint file " + data + ": " + e.getMessage(), e);
        }
        DataStream stream = null;
        for (String line : text(manifest).lines().toList()) {
            String[] f = line.split(" ");
            if (line.startsWith("#")) {
                continue;
            }
            try {
                if (f[0].equals("stream") && f.length == 3) {
                    stream = new DataStream(Long.parseLong(f[1]), Long.parseLong(f[2]));
                } else if (f[0].equals("tensor") && f.length == 9) {
                    int length = Integer.parseInt(f[5]);
                    long offset = Long.parseLong(f[7]);
                    int size = 3 * Float.BYTES * length;
                    if (offset < 0 || offset + size > bytes.capacity()) {
                        throw corrupt(data, "ends before tensor " + f[1] + " (bytes " + offset + ".." + (offset + size)
                                + " of " + bytes.capacity() + ")");
                    }
                    ByteBuffer chunk = bytes.slice((int) offset, size).order(ByteOrder.LITTLE_ENDIAN);
                    CRC32 crc = new CRC32();
                    crc.update(chunk.duplicate());
                    if (crc.getValue() != Long.parseLong(f[8], 16)) {
                        throw corrupt(data, "fails its checksum for tensor " + f[1]);
                    }
                    FloatBuffer floats = chunk.asFloatBuffer();
                    float[][] dmv = new float[3][length];
                    for (float[] a : dmv) {
                        floats.get(a);
                    }
                    into.computeIfAbsent(f[1], k -> new ArrayList<>()).add(new TensorSlice(f[1],
                            Integer.parseInt(f[2]), Integer.parseInt(f[3]), Integer.parseInt(f[4]), dmv[0], dmv[1],
                            dmv[2], Long.parseLong(f[6])));
                } else {
                    throw corrupt(manifest, "has an unreadable line '" + line + "'");
                }
            } catch (NumberFormatException e) {
                throw corrupt(manifest, "has an unreadable line '" + line + "'");
            }
        }
        if (stream == null) {
            throw corrupt(manifest, "names no data stream");
        }
        return stream;
    }

    /** The whole tensor from its slices: same shape and step count, covering it exactly once. */
    private static TensorSlice assemble(Path dir, String name, List<TensorSlice> slices) {
        slices.sort(Comparator.comparingInt(TensorSlice::from));
        TensorSlice first = slices.get(0);
        int size = first.rows() * first.cols();
        float[] data = new float[size];
        float[] m = new float[size];
        float[] v = new float[size];
        int at = 0;
        for (TensorSlice s : slices) {
            if (s.rows() != first.rows() || s.cols() != first.cols() || s.steps() != first.steps()) {
                throw corrupt(dir, "holds parts of tensor " + name + " that disagree on its shape or optimizer step");
            }
            if (s.from() != at) {
                throw corrupt(dir, "covers tensor " + name + " with a " + (s.from() > at ? "gap" : "overlap")
                        + " at element " + Math.min(at, s.from()) + ": a part is missing");
            }
            System.arraycopy(s.data(), 0, data, at, s.data().length);
            System.arraycopy(s.m(), 0, m, at, s.m().length);
            System.arraycopy(s.v(), 0, v, at, s.v().length);
            at += s.data().length;
        }
        if (at != size) {
            throw corrupt(dir, "covers tensor " + name + " up to element " + at + " of " + size
                    + ": a part is missing");
        }
        return new TensorSlice(name, first.rows(), first.cols(), 0, data, m, v, first.steps());
    }

    private static long number(Path file, String line, String key) {
        String[] f = line.split(" ");
        try {
            if (f.length == 2 && f[0].equals(key)) {
                return Long.parseLong(f[1]);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw corrupt(file, "wants '" + key + " N', has '" + line + "'");
    }

    private static String text(Path file) {
        try {
            return Files.readString(file);
        } catch (NoSuchFileException e) {
            throw corrupt(file, "is missing");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read checkpoint file " + file + ": " + e.getMessage(), e);
        }
    }

    private static IllegalStateException corrupt(Path file, String problem) {
        return new IllegalStateException("checkpoint file " + file + " " + problem
                + "; refusing to resume from it (remove the checkpoint directory or point latest at another)");
    }
}
