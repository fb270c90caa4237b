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
 * the operator, agent and trainer images.
 */
public record ImageNames(String registry, String tag, String operator, String agent, String trainer) {
  public static final List<String> IMAGES = List.of("operator", "agent", "trainer");

  public static ImageNames load(Path file) throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      p.load(r);
    }
    return new ImageNames(required(p, "registry", file), required(p, "tag", file), required(p, "operator", file),
        required(p, "agent", file), required(p, "trainer", file));
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
    return new ImageNames(otherRegistry.replaceAll("/+$", ""), tag, operator, agent, trainer);
  }

  /** Repository of one image ("operator", "agent" or "trainer"), without the tag. */
  public String repository(String image) {
    String name = switch (image) {
      case "operator" -> operator;
      case "agent" -> agent;
      case "trainer" -> trainer;
      default -> throw new IllegalArgumentException("unknown image '" + image + "' (known: " + IMAGES + ")");
    };
    return registry + "/" + name;
  }

  public String reference(String image) {
    return repository(image) + ":" + tag;
  }
}
