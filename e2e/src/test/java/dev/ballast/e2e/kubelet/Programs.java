package dev.ballast.e2e.kubelet;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.util.List;

/**
 * Which local program runs a container. Ballast's own containers map to the stand-ins in
 * e2e/programs (see its README); any other container sleeps until stopped.
 */
public final class Programs {
  private final Path dir;

  public Programs(Path programsDir) {
    this.dir = programsDir;
  }

  List<String> commandFor(Pod pod, Container c) {
    return switch (c.getName()) {
      case "ballast-sidecar" -> python("sidecar.py");
      case "balancer" -> python("balancer.py");
      case "trainer" -> python("trainer.py");
      default -> List.of("python3", "-c", "import time\nwhile True: time.sleep(3600)");
    };
  }

  private List<String> python(String script) {
    return List.of("python3", "-u", dir.resolve(script).toString());
  }
}
