package dev.ballast.operator.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crdv2.generator.CRDGenerator;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
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

  @Test
  void theHelmChartCarriesTheSameCrd() throws IOException {
    Path chartCopy = Path.of("..", "charts", "ballast", "files", "crds", "trainingjobs.ballast.dev.yaml");
    assertThat(Files.readString(chartCopy))
        .as("charts/ballast/files/crds differs from crds/; run: bin/ballast crd")
        .isEqualTo(Files.readString(COMMITTED));
  }

  static String generate(Path out) throws IOException {
    new CRDGenerator().customResourceClasses(TrainingJob.class).forCRDVersions("v1").inOutputDir(out.toFile())
        .generate();
    CustomResourceDefinition crd = Serialization.unmarshal(
        Files.readString(out.resolve("trainingjobs.ballast.dev-v1.yml")), CustomResourceDefinition.class);
    inDeclaredOrder(crd.getSpec().getVersions().get(0).getAdditionalPrinterColumns());
    boundTemplate(crd);
    return "# Generated from operator/src/main/java/dev/ballast/operator/api by `bin/ballast crd`; do not edit.\n"
        + Serialization.asYaml(crd).replaceFirst("^---\n", "");
  }

  /**
   * What the generator cannot say about the embedded pod template (a Fabric8 class without schema
   * annotations): a template needs a spec with containers, and its container lists are bounded, so
   * that the CEL rules iterating them stay within the API server's estimated cost budget (an
   * unbounded list is costed at the largest request body can hold).
   */
  static void boundTemplate(CustomResourceDefinition crd) {
    JSONSchemaProps template = crd.getSpec().getVersions().get(0).getSchema().getOpenAPIV3Schema()
        .getProperties().get("spec").getProperties().get("template");
    template.setRequired(List.of("spec"));
    JSONSchemaProps podSpec = template.getProperties().get("spec");
    podSpec.setRequired(List.of("containers"));
    for (String list : List.of("containers", "initContainers")) {
      podSpec.getProperties().get(list).setMaxItems((long) TrainingJobSpec.MAX_TEMPLATE_CONTAINERS);
    }
  }

  /** The generator sorts printer columns by JSON path; kubectl shows them in list order, so restore the declared one. */
  static void inDeclaredOrder(List<CustomResourceColumnDefinition> columns) {
    List<String> declared = Arrays.stream(TrainingJob.class.getAnnotationsByType(AdditionalPrinterColumn.class))
        .map(AdditionalPrinterColumn::name).toList();
    columns.sort(Comparator.comparingInt(c -> declared.indexOf(c.getName())));
  }
}
