package dev.ballast.images;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

/**
 * The one set of image names (images/images.properties): {@code <registry>/<name>:<tag>} for each of
 * the operator, agent, trainer, reference-trainer and reference-trainer-cuda images.
 */
public record ImageNames(String registry, String tag, String operator, String agent, String trainer,
                         String referenceTrainer, String referenceTrainerCuda) {
  public static final List<String> IMAGES =
      List.of("operator", "agent", "trainer", "reference-trainer", "reference-trainer-cuda");

  public static ImageNames load(Path file) throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    }
    return new ImageNames(required(p, "registry", file), required(p, "tag", file), required(p, "operator", file),
        required(p, "agent", file), required(p, "trainer", file), required(p, "reference-trainer", file),
        required(p, "reference-trainer-cuda", file));
  }

  private static String required(Properties p, String key, Path file) {
    String value = p.getProperty(key, "").trim();
    if (value.isEmpty()) {
      throw new IllegalArgumentException(file + ": '" + key + "' is missing or empty");
    }
    return value;
  }

  /** The same names under another registry (bin/ballast images --push REGISTRY). */
  public ImageNames inRegistry(String otherRegistry) {
    return new ImageNames(otherRegistry.replaceAll("/+$", ""), tag, operator, agent, trainer, referenceTrainer,
        referenceTrainerCuda);
  }

  /** Repository of one image (one of {@link #IMAGES}), without the tag. */
  public String repository(String image) {
    String name = switch (image) {
      case "operator" -> operator;
      case "agent" -> agent;
      case "trainer" -> trainer;
      case "reference-trainer" -> referenceTrainer;
      case "reference-trainer-cuda" -> referenceTrainerCuda;
      default -> throw new IllegalArgumentException("unknown image '" + image + "' (known: " + IMAGES + ")");
    };
    return registry + "/" + name;
  }

  public String reference(String image) {
    return repository(image) + ":" + tag;
  }
}
