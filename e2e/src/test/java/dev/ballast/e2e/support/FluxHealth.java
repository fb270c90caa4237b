package dev.ballast.e2e.support;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The health Flux computes for a live object, as its kustomize-controller and helm-controller health checks do
 * (e2e/control-plane/kstatus-check, built by e2e/control-plane/build.sh): by default kstatus, through Flux's own fork
 * of cli-utils; {@link #withExprs} through Flux's CEL evaluator, with the chart's healthCheckExprs entry
 * (charts/ballast/files/flux/health-check-exprs.yaml).
 */
public final class FluxHealth {
  /** kstatus's status (Current, InProgress, Failed, Terminating) and message. */
  public record Health(String status, String message) {}

  private final Path binary;
  private final Path root;

  public FluxHealth(BallastEnvironment env) {
    this.binary = env.bin("kstatus-check");
    this.root = env.root();
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException("no kstatus-check at " + binary
          + ": run e2e/control-plane/build.sh kstatus-check");
    }
  }

  /** Flux's default: kstatus. */
  public Health of(GenericKubernetesResource resource) {
    return run(resource, List.of(binary.toString()));
  }

  /** With the chart's healthCheckExprs entry, as a Kustomization that lists it. */
  public Health withExprs(GenericKubernetesResource resource) {
    return run(resource, List.of(binary.toString(), "--exprs",
        root.resolve("charts/ballast/files/flux/health-check-exprs.yaml").toString()));
  }

  private Health run(GenericKubernetesResource resource, List<String> command) {
    Cmd.Result r = Cmd.run(root, Map.of(), Duration.ofSeconds(30), command, Serialization.asJson(resource)).ok();
    String[] line = r.stdout().strip().split("\t", 2);
    return new Health(line[0], line.length > 1 ? line[1] : "");
  }
}
