package dev.ballast.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImageNamesTest {
  @TempDir
  Path tmp;

  @Test
  void theRepositoryNamesReferencesAndAPushRegistry() throws IOException {
    ImageNames names = ImageNames.load(Path.of("images.properties"));
    assertThat(names.reference("agent")).isEqualTo(names.registry() + "/" + names.agent() + ":" + names.tag());
    assertThat(names.inRegistry("127.0.0.1:5000/").reference("trainer"))
        .isEqualTo("127.0.0.1:5000/" + names.trainer() + ":" + names.tag());
    assertThat(names.reference("reference-trainer"))
        .isEqualTo(names.registry() + "/" + names.referenceTrainer() + ":" + names.tag());
    assertThat(names.reference("reference-trainer-cuda"))
        .isEqualTo(names.registry() + "/" + names.referenceTrainerCuda() + ":" + names.tag());
    assertThatThrownBy(() -> names.reference("balancer")).hasMessageContaining("unknown image 'balancer'");
  }

  @Test
  void aMissingNameIsNamed() throws IOException {
    Path file = tmp.resolve("images.properties");
    Files.writeString(file, "registry=r\ntag=1\noperator=o\nagent=\n");
    assertThatThrownBy(() -> ImageNames.load(file)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'agent' is missing or empty");
  }
}
