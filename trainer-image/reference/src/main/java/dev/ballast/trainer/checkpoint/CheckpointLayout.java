package dev.ballast.trainer.checkpoint;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The names inside a checkpoint root: gen-G-step-S directories, their files, and the latest pointer. */
public final class CheckpointLayout {

    static final String FORMAT = "ballast-checkpoint 1";
    static final String LATEST = "latest";
    static final String DESCRIPTOR = "checkpoint.txt";
    static final String PART_HEADER = "# ballast checkpoint part: tensor NAME ROWS COLS FROM LENGTH ADAM_STEPS "
            + "BYTE_OFFSET CRC32; data, m, v as float32 little-endian\n";

    private static final Pattern NAME = Pattern.compile("gen-(\\d+)-step-(\\d+)");

    private CheckpointLayout() {
    }

    /** The directory of generation generation's checkpoint after step step. */
    public static Path directory(Path root, long generation, int step) {
        return root.resolve("gen-" + generation + "-step-" + step);
    }

    /** G of a gen-G-step-S name; -1 for any other name (which then never blocks a publish). */
    static long generationOf(String name) {
        Matcher m = NAME.matcher(name);
        return m.matches() ? Long.parseLong(m.group(1)) : -1;
    }

    static String partData(int part) {
        return "part-" + part + ".bin";
    }

    static String partManifest(int part) {
        return "part-" + part + ".txt";
    }
}
