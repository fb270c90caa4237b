package dev.ballast.operator.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * One set of image names: what bin/ballast images builds (images/images.properties), the chart's
 * defaults (values.yaml, and Chart.yaml's appVersion as the default tag), the operator's defaults
 * for the pods it creates and the demo's sample job name the same images.
 */
class ImageNamesTest {
  static final Path ROOT = Path.of("..");

  @Test
  void theChartTheOperatorAndTheImageBuildNameTheSameImages() throws IOException {
    Properties names = new Properties();
    try (Reader r = Files.newBufferedReader(ROOT.resolve("images/images.properties"))) {
      names.load(r);
    }
    String registry = names.getProperty("registry");
    String tag = names.getProperty("tag");
    String agent = registry + "/" + names.getProperty("agent");

    YAMLMapper yaml = new YAMLMapper();
    JsonNode chart = yaml.readTree(ROOT.resolve("charts/ballast/Chart.yaml").toFile());
    JsonNode values = yaml.readTree(ROOT.resolve("charts/ballast/values.yaml").toFile());
    assertThat(chart.path("appVersion").asText()).as("Chart.yaml appVersion (the chart's default tag)").isEqualTo(tag);
    assertThat(values.at("/image/repository").asText()).as("values.yaml image.repository")
        .isEqualTo(registry + "/" + names.getProperty("operator"));
    for (String key : new String[] {"image", "sidecarImage", "balancerImage"}) {
      assertThat(values.at("/" + key + "/tag").asText()).as("values.yaml %s.tag: empty = appVersion", key)
          .isIn("", tag);
    }
    assertThat(values.at("/sidecarImage/repository").asText()).as("values.yaml sidecarImage.repository").isEqualTo(agent);
    assertThat(values.at("/balancerImage/repository").asText()).as("values.yaml balancerImage.repository")
        .isEqualTo(agent);

    SmallRyeConfig empty = new SmallRyeConfigBuilder().withMapping(OperatorConfig.class).build();
    OperatorConfig defaults = empty.getConfigMapping(OperatorConfig.class);
    assertThat(defaults.sidecarImage()).as("operator default sidecar image").isEqualTo(agent + ":" + tag);
    assertThat(defaults.balancerImage()).as("operator default balancer image").isEqualTo(agent + ":" + tag);
    assertThat(OperatorSettings.defaults().sidecarImage()).isEqualTo(agent + ":" + tag);

    // the demo's sample job runs the reference trainer: the e2e harness recognizes its image by this name
    JsonNode demo = yaml.readTree(ROOT.resolve("e2e/demo/moe-demo.yaml").toFile());
    assertThat(demo.at("/spec/template/spec/containers/0/image").asText()).as("e2e/demo/moe-demo.yaml trainer image")
        .isEqualTo(registry + "/" + names.getProperty("reference-trainer") + ":" + tag);
  }
}
