package dev.ballast.e2e.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.util.List;

/**
 * Which local program runs a container. The Ballast agent's containers ({@code ballast-sidecar},
 * {@code balancer}) run the real agent, built by Maven before the suite, with the container's args;
 * {@code trainer} runs the stand-in in e2e/programs (see its README) until the reference trainer
 * exists; any other container sleeps until stopped.
 *
 * <p>With {@code -Dballast.e2e.images=DIR} (images/target/test after images/test.sh), the agent runs
 * from the unpacked agent image instead: its entrypoint, env and user (see {@link UnpackedImage}).
 */
public final class Programs {
  private final Path dir;
  private final Path agentJar;
  private final UnpackedImage agentImage;

  public Programs(Path root) {
    this.dir = root.resolve("e2e/programs");
    this.agentJar = root.resolve("balancer-sidecar/app/target/quarkus-app/quarkus-run.jar");
    String images = System.getProperty("ballast.e2e.images", "");
    try {
      this.agentImage = images.isEmpty() ? null : UnpackedImage.load(root.resolve(images), "agent");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The image a container runs from, when it runs from one (its env replaces the host's). */
  java.util.Optional<UnpackedImage> imageFor(Container c) {
    return isAgent(c) ? java.util.Optional.ofNullable(agentImage) : java.util.Optional.empty();
  }

  private static boolean isAgent(Container c) {
    return c.getName().equals("ballast-sidecar") || c.getName().equals("balancer");
  }

  List<String> commandFor(Pod pod, Container c, List<Path> binds) throws java.io.IOException {
    if (isAgent(c) && agentImage != null) {
      return agentImage.command(c.getArgs(), binds);
    }
    return switch (c.getName()) {
      case "ballast-sidecar", "balancer" -> agent(c);
      case "trainer" -> python("trainer.py");
      default -> List.of("python3", "-c", "import time\nwhile True: time.sleep(3600)");
    };
  }

  /** The agent in the role its args name, with a small heap: a real cluster gives it its own container. */
  private List<String> agent(Container c) {
    if (!java.nio.file.Files.exists(agentJar)) {
      throw new IllegalStateException(agentJar + " is missing: build it with ./mvnw -pl balancer-sidecar/app -am package");
    }
    List<String> cmd = new java.util.ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", agentJar.toString()));
    cmd.addAll(c.getArgs());
    return cmd;
  }

  private List<String> python(String script) {
    return List.of("python3", "-u", dir.resolve(script).toString());
  }
}
