package dev.ballast.trainer.data;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The training text as bytes: one file, or every regular file of a directory (by name, symbolic links skipped). */
public record ByteCorpus(String source, byte[] bytes) {

    /** Present on Debian and most Linux distributions: a few hundred KiB of English prose. */
    public static final Path DEFAULT = Path.of("/usr/share/common-licenses");

    public static ByteCorpus load(Path path) {
        try {
            if (Files.isDirectory(path)) {
                List<Path> files = new ArrayList<>();
                try (Stream<Path> s = Files.list(path)) {
                    s.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).sorted().forEach(files::add);
                }
                var out = new java.io.ByteArrayOutputStream();
                for (Path f : files) {
                    out.write(Files.readAllBytes(f));
                }
                return new ByteCorpus(path + " (" + files.size() + " files)", out.toByteArray());
            }
            if (!Files.isRegularFile(path)) {
                throw new IllegalArgumentException("training data " + path + " is not a file or directory");
            }
            return new ByteCorpus(path.toString(), Files.readAllBytes(path));
        } catch (IOException e) {
            throw new UncheckedIOException("reading training data " + path + ": " + e.getMessage(), e);
        }
    }
}
