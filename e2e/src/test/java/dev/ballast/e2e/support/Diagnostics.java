package dev.ballast.e2e.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestWatcher;
import org.opentest4j.TestAbortedException;

/**
 * On a failed test, adds each TrainingJob of the test's namespace, one line each ({@link Jobs#describe}), to the
 * failure's message (the line a test report's summary shows, often all a CI log keeps), and prints what a person would
 * look at: events and TrainingJobs of the namespace, its pods as YAML, and the tails of the operator's and the process
 * kubelet's logs.
 */
public final class Diagnostics implements TestWatcher, TestExecutionExceptionHandler {
  /** How much of the jobs' lines the failure's message takes. */
  static final int SUMMARY_CHARS = 4000;

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable cause) throws Throwable {
    if (cause instanceof TestAbortedException) throw cause;
    String jobs;
    try {
      var client = env(context).admin();
      String ns = Jobs.namespaceFor(context.getRequiredTestClass());
      jobs = client.genericKubernetesResources("ballast.dev/v1alpha1", "TrainingJob").inNamespace(ns).list().getItems()
          .stream().map(j -> "\n  " + Jobs.describe(client, j))
          .collect(Collectors.joining());
    } catch (RuntimeException e) {
      jobs = "\n  (the jobs could not be read: " + e + ")";
    }
    if (jobs.isEmpty()) throw cause;
    if (jobs.length() > SUMMARY_CHARS) jobs = jobs.substring(0, SUMMARY_CHARS) + " ...";
    AssertionError described = new AssertionError(cause.getMessage() + "\nthe test's TrainingJobs then:" + jobs, cause);
    described.setStackTrace(cause.getStackTrace());
    throw described;
  }

  private static BallastEnvironment env(ExtensionContext context) {
    return context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
        .get(LocalBallast.Holder.class, LocalBallast.Holder.class).env;
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    BallastEnvironment env = env(context);
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
