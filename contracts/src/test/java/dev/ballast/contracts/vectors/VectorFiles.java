package dev.ballast.contracts.vectors;

import dev.ballast.contracts.json.Json;
import dev.ballast.contracts.json.JsonException;
import dev.ballast.contracts.json.JsonFields;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The golden vector files in contracts/vectors (docs/contracts.md), found from any module's working directory.
 * A missing file fails the test that asked for it: vectors never skip.
 */
public final class VectorFiles {
    private VectorFiles() {
    }

    public static Path path(String name) {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("contracts").resolve("vectors").resolve(name);
            if (Files.isDirectory(dir.resolve("contracts").resolve("vectors"))) {
                if (!Files.isRegularFile(candidate)) {
                    throw new AssertionError("golden vector file " + candidate + " is missing");
                }
                return candidate;
            }
        }
        throw new AssertionError("no contracts/vectors directory above " + Path.of("").toAbsolutePath());
    }

    /** The objects of the array {@code key} of a vector file. */
    public static List<Map<String, Object>> cases(Map<String, Object> file, String key) {
        return JsonFields.requireArray(file, key).stream().map(o -> JsonFields.object(o, key + "[]")).toList();
    }

    /**
     * Checks a codec against a vector file's {@code valid} cases (each input decodes and re-encodes to its
     * {@code canonical} text) and {@code invalid} cases (each input is refused with a {@link JsonException} that
     * mentions every string of {@code errorMentions}), with at least the given numbers of each.
     */
    public static <T> void checkCodec(Map<String, Object> file, Function<String, T> decode, Function<T, String> encode,
                                      int minValid, int minInvalid) {
        List<Map<String, Object>> valid = cases(file, "valid");
        assertThat(valid).hasSizeGreaterThanOrEqualTo(minValid);
        for (Map<String, Object> v : valid) {
            assertThat(encode.apply(decode.apply(JsonFields.requireString(v, "input"))))
                    .as(JsonFields.requireString(v, "name")).isEqualTo(JsonFields.requireString(v, "canonical"));
        }
        List<Map<String, Object>> invalid = cases(file, "invalid");
        assertThat(invalid).hasSizeGreaterThanOrEqualTo(minInvalid);
        for (Map<String, Object> v : invalid) {
            String[] mentions = JsonFields.requireArray(v, "errorMentions").toArray(String[]::new);
            assertThatThrownBy(() -> decode.apply(JsonFields.requireString(v, "input")))
                    .as(JsonFields.requireString(v, "name"))
                    .isInstanceOf(JsonException.class).hasMessageContainingAll(mentions);
        }
    }

    /** The file parsed as a JSON object. */
    public static Map<String, Object> load(String name) {
        Path p = path(name);
        try {
            return JsonFields.object(Json.parse(Files.readString(p)), p.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
