package dev.ballast.e2e.support;

/**
 * Four PriorityClasses named by a prefix, for reclaim and preemption (docs/elastic.md): {@code <prefix>-high} (1000),
 * {@code <prefix>-low} (10), {@code <prefix>-never} (1000, preemptionPolicy: Never) and {@code <prefix>-guarded} (10,
 * a minimum runtime of {@value #GUARDED_MIN_RUNTIME_SECONDS} s). Cluster-scoped: created for a test or benchmark and
 * deleted after it ({@link AutoCloseable}).
 */
public final class PriorityClasses implements AutoCloseable {
  public static final int GUARDED_MIN_RUNTIME_SECONDS = 20;
  private final BallastEnvironment env;
  private final String prefix;

  private PriorityClasses(BallastEnvironment env, String prefix) {
    this.env = env;
    this.prefix = prefix;
  }

  /** Creates (or updates) the four classes. */
  public static PriorityClasses apply(BallastEnvironment env, String prefix) {
    String yaml = klass(prefix + "-high", 1000, "", "") + "---\n" + klass(prefix + "-low", 10, "", "") + "---\n"
        + klass(prefix + "-never", 1000, "", "preemptionPolicy: Never\n") + "---\n"
        + klass(prefix + "-guarded", 10, "ballast.dev/min-runtime-seconds: \"" + GUARDED_MIN_RUNTIME_SECONDS + "\"",
            "");
    env.kubectlStdin(yaml, "apply", "-f", "-").ok();
    return new PriorityClasses(env, prefix);
  }

  private static String klass(String name, int value, String annotations, String more) {
    return "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: " + name + ", annotations: {"
        + annotations + "}}\nvalue: " + value + "\n" + more;
  }

  public String high() {
    return prefix + "-high";
  }

  public String low() {
    return prefix + "-low";
  }

  public String never() {
    return prefix + "-never";
  }

  public String guarded() {
    return prefix + "-guarded";
  }

  @Override
  public void close() {
    env.kubectl("delete", "priorityclass", high(), low(), never(), guarded(), "--ignore-not-found");
  }
}
