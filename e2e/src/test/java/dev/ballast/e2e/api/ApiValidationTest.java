package dev.ballast.e2e.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ballast.e2e.support.BallastEnvironment;
import dev.ballast.e2e.support.Cmd;
import dev.ballast.e2e.support.E2eTest;
import dev.ballast.e2e.support.Jobs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** The CRD's schema, defaults and CEL rules as the real API server enforces them (crds/examples). */
@E2eTest
class ApiValidationTest {
  final BallastEnvironment env;
  final Jobs jobs;

  ApiValidationTest(BallastEnvironment env) {
    this.env = env;
    this.jobs = new Jobs(env, ApiValidationTest.class);
  }

  Path examples() {
    return env.root().resolve("crds/examples");
  }

  @TestFactory
  Stream<DynamicTest> everyInvalidExampleIsRejectedWithItsMessage() throws IOException {
    List<Path> files;
    try (Stream<Path> s = Files.list(examples().resolve("invalid"))) {
      files = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
    assertThat(files).hasSizeGreaterThanOrEqualTo(23);
    return files.stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(), () -> {
      List<String> header = Files.readAllLines(file).stream().filter(l -> l.startsWith("# ")).toList();
      String expect = header.stream().filter(l -> l.startsWith("# expect: ")).findFirst()
          .orElseThrow(() -> new AssertionError(file + " has no '# expect:' line")).substring("# expect: ".length());
      var before = header.stream().filter(l -> l.startsWith("# apply-after: ")).findFirst()
          .map(l -> file.getParent().resolve(l.substring("# apply-after: ".length())).toString());
      before.ifPresent(f -> env.kubectl("apply", "-n", jobs.namespace(), "-f", f).ok());
      try {
        Cmd.Result r = env.kubectl("apply", "-n", jobs.namespace(), "-f", file.toString());
        assertThat(r.exitCode()).as("kubectl apply of %s must fail", file.getFileName()).isNotZero();
        assertThat(r.stderr()).contains(expect);
        header.stream().filter(l -> l.startsWith("# not: ")).map(l -> l.substring("# not: ".length()))
            .forEach(misleading -> assertThat(r.stderr()).doesNotContain(misleading));
      } finally {
        before.ifPresent(f -> env.kubectl("delete", "-n", jobs.namespace(), "--wait=false", "-f", f));
      }
    }));
  }

  @Test
  void validExamplesAreAcceptedAndDefaulted() {
    for (String example : List.of("minimal.yaml", "full.yaml", "routed.yaml")) {
      env.kubectl("apply", "--dry-run=server", "-n", jobs.namespace(), "-f",
          examples().resolve(example).toString()).ok();
    }
    String defaulted = env.kubectl("apply", "--dry-run=server", "-n", jobs.namespace(), "-o",
        "jsonpath={.spec.gpusPerWorker} {.spec.balancer.mode} {.spec.topology.rackLabel} {.spec.parallelism.pipeline}"
            + " {.spec.balancer.hardware.peakTflops} {.spec.balancer.hardware.gemmEfficiency}",
        "-f", examples().resolve("minimal.yaml").toString()).ok().stdout();
    assertThat(defaulted).isEqualTo("8 replicate topology.kubernetes.io/rack 1 989 0.6");
  }

  @Test
  void kubectlExplainDocumentsTheApi() {
    String explain = env.kubectl("explain", "trainingjob.spec.workers").ok().stdout();
    assertThat(explain).contains("Elastic range of worker pods").contains("min").contains("max");
  }
}
