package dev.ballast.operator.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.crdv2.generator.CRDGenerator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The committed CRD (crds/trainingjobs.ballast.dev.yaml) must be exactly what the API classes generate.
 * Refresh it with {@code bin/ballast crd}.
 */
class CrdDriftTest {
  static final Path COMMITTED = Path.of("..", "crds", "trainingjobs.ballast.dev.yaml");

  @Test
  void committedCrdMatchesTheApiClasses(@TempDir Path out) throws IOException {
    String generated = generate(out);
    if (Boolean.getBoolean("ballast.crd.update")) {
      Files.writeString(COMMITTED, generated);
    }
    assertThat(COMMITTED).as("committed CRD").exists();
    assertThat(Files.readString(COMMITTED))
        .as("crds/trainingjobs.ballast.dev.yaml is out of date with the API classes; run: bin/ballast crd")
        .isEqualTo(generated);
  }

  static String generate(Path out) throws IOException {
    new CRDGenerator().customResourceClasses(TrainingJob.class).forCRDVersions("v1").inOutputDir(out.toFile())
        .generate();
    return "# Generated from operator/src/main/java/dev/ballast/operator/api by `bin/ballast crd`; do not edit.\n"
        + Files.readString(out.resolve("trainingjobs.ballast.dev-v1.yml"));
  }
}
