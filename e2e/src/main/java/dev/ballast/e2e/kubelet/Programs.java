package dev.ballast.e2e.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * Which local program runs a container. The Ballast agent's containers ({@code ballast-sidecar},
 * {@code balancer}) run the real agent, built by Maven before the suite, with the container's args. A
 * {@code trainer} container whose image is the reference trainer's (its repository's last path segment is the
 * {@code reference-trainer} name of images/images.properties, any registry and tag) runs the reference trainer
 * ({@code DistributedTrainMain}) with the container's args; any other {@code trainer} runs the stand-in in
 * e2e/programs (see its README), whose env controls its fate; any other container sleeps until stopped.
 *
 * <p>With {@code -Dballast.e2e.images=DIR} (images/target/test after images/test.sh), the agent and the reference
 * trainer run from their unpacked images instead: entrypoint, env and user (see {@link UnpackedImage}).
 */
public final class Programs {
  /** The reference trainer's main class, as its image's entrypoint and bin/ballast train run it. */
  static final String TRAINER_MAIN = "dev.ballast.trainer.train.DistributedTrainMain";

  private final Path dir;
  private final Path agentJar;
  private final Path trainerClasses;
  private final Path trainerClasspath;
  private final String referenceTrainerName;
  private final UnpackedImage agentImage;
  private final UnpackedImage trainerImage;

  public Programs(Path root) {
    this.dir = root.resolve("e2e/programs");
    this.agentJar = root.resolve("balancer-sidecar/app/target/quarkus-app/quarkus-run.jar");
    this.trainerClasses = root.resolve("trainer-image/reference/target/classes");
    this.trainerClasspath = root.resolve("trainer-image/reference/target/trainer-classpath.txt");
    String images = System.getProperty("ballast.e2e.images", "");
    try {
      this.referenceTrainerName = imageName(root.resolve("images/images.properties"), "reference-trainer");
      this.agentImage = images.isEmpty() ? null : UnpackedImage.load(root.resolve(images), "agent");
      this.trainerImage = images.isEmpty() ? null : UnpackedImage.load(root.resolve(images), "reference-trainer");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The image a container runs from, when it runs from one (its env replaces the host's). */
  Optional<UnpackedImage> imageFor(Container c) {
    if (isAgent(c)) return Optional.ofNullable(agentImage);
    if (isReferenceTrainer(c)) return Optional.ofNullable(trainerImage);
    return Optional.empty();
  }

  private static boolean isAgent(Container c) {
    return c.getName().equals("ballast-sidecar") || c.getName().equals("balancer");
  }

  /** A trainer container of the reference trainer's image: ghcr.io/ballast-dev/reference-trainer:0.1.0 or another registry's. */
  boolean isReferenceTrainer(Container c) {
    if (!c.getName().equals("trainer") || c.getImage() == null) return false;
    String image = c.getImage().replaceAll("@.*$", "");                // no digest
    String repository = image.replaceAll(":[^:/]*$", "");               // no tag (a registry's :port stays)
    return repository.substring(repository.lastIndexOf('/') + 1).equals(referenceTrainerName);
  }

  List<String> commandFor(Pod pod, Container c, List<Path> binds) throws IOException {
    Optional<UnpackedImage> image = imageFor(c);
    if (image.isPresent()) return image.get().command(c.getArgs(), binds);
    if (isReferenceTrainer(c)) return referenceTrainer(c);
    return switch (c.getName()) {
      case "ballast-sidecar", "balancer" -> agent(c);
      case "trainer" -> python("trainer.py");
      default -> List.of("python3", "-c", "import time\nwhile True: time.sleep(3600)");
    };
  }

  /** The agent in the role its args name, with a small heap: a real cluster gives it its own container. */
  private List<String> agent(Container c) {
    if (!Files.exists(agentJar)) {
      throw new IllegalStateException(agentJar + " is missing: build it with ./mvnw -pl balancer-sidecar/app -am package");
    }
    List<String> cmd = new ArrayList<>(List.of(java(), "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-jar", agentJar.toString()));
    cmd.addAll(c.getArgs());
    return cmd;
  }

  /**
   * The reference trainer on the host's JVM, as its image's entrypoint runs it (the Vector API module for the Java
   * GEMM, docs/trainer.md), with the classpath its Maven build wrote; the container's args are its flags. C2 stays
   * on: the Vector API is slow until C2 compiles the kernel.
   */
  private List<String> referenceTrainer(Container c) throws IOException {
    if (!Files.exists(trainerClasspath)) {
      throw new IllegalStateException(trainerClasspath + " is missing: build it with ./mvnw -pl trainer-image/reference"
          + " -am process-classes (the e2e module's build does, through -am)");
    }
    List<String> cmd = new ArrayList<>(List.of(java(), "-Xmx256m", "-XX:+UseSerialGC",
        "--add-modules", "jdk.incubator.vector", "-cp",
        trainerClasses + ":" + Files.readString(trainerClasspath).strip(), TRAINER_MAIN));
    cmd.addAll(c.getArgs());
    return cmd;
  }

  private static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private List<String> python(String script) {
    return List.of("python3", "-u", dir.resolve(script).toString());
  }

  /** One image's name (without registry and tag) from images/images.properties. */
  static String imageName(Path properties, String key) throws IOException {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(properties)) {
      p.load(r);
    }
    String name = p.getProperty(key, "").trim();
    if (name.isEmpty()) throw new IllegalStateException(properties + " names no '" + key + "' image");
    return name;
  }
}
