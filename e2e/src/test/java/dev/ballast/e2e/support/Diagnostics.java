package dev.ballast.e2e.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * On a failed test, prints what a person would look at: events and TrainingJobs of the test's
 * namespace, its pods as YAML, and the tails of the operator's and the process kubelet's logs.
 */
public final class Diagnostics implements TestWatcher {
  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    BallastEnvironment env = context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
        .get(LocalBallast.Holder.class, LocalBallast.Holder.class).env;
    String ns = Jobs.namespaceFor(context.getRequiredTestClass());
    StringBuilder out = new StringBuilder("\n===== diagnostics for " + context.getDisplayName() + " (namespace " + ns
        + ") =====\n");
    out.append(env.kubectl("get", "events", "-n", ns, "--sort-by=.lastTimestamp").stdout());
    out.append(env.kubectl("get", "tj,pods,svc,cm,deploy", "-n", ns, "-o", "wide").stdout());
    out.append(env.kubectl("get", "pods", "-n", ns, "-o", "yaml").stdout());
    out.append(env.kubectl("get", "tj", "-n", ns, "-o", "yaml").stdout());
    out.append("----- operator.log (tail) -----\n").append(tail(env.logs().resolve("operator.log"), 80));
    try (Stream<Path> pods = Files.list(env.logs().resolve("pods"))) {
      pods.filter(p -> p.getFileName().toString().startsWith(ns + "_")).sorted().forEach(p ->
          out.append("----- ").append(p.getFileName()).append(" (tail) -----\n").append(tail(p, 20)));
    } catch (IOException ignored) {
      // no pod logs yet
    }
    System.err.println(out);
  }

  private static String tail(Path file, int lines) {
    try {
      var all = Files.readAllLines(file);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size())) + "\n";
    } catch (IOException e) {
      return "(no " + file.getFileName() + ")\n";
    }
  }
}
